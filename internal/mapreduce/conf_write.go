package mapreduce

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
)

// WriteConf writes a job configuration as Hadoop's
// org.apache.hadoop.conf.Configuration.writeXml does for the job_..._conf.xml
// the job history server keeps beside a history: an XML declaration, then
// <configuration> with one <property><name/><value/><source>job.xml</source></property>
// per line, in the given order. ReadConf reads it back.
func WriteConf(w io.Writer, conf [][2]string) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="no"?><configuration>` + "\n")
	for _, kv := range conf {
		bw.WriteString("<property><name>")
		if err := xml.EscapeText(bw, []byte(kv[0])); err != nil {
			return fmt.Errorf("mapreduce: write conf: %w", err)
		}
		bw.WriteString("</name><value>")
		if err := xml.EscapeText(bw, []byte(kv[1])); err != nil {
			return fmt.Errorf("mapreduce: write conf: %w", err)
		}
		bw.WriteString("</value><source>job.xml</source></property>\n")
	}
	bw.WriteString("</configuration>\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("mapreduce: write conf: %w", err)
	}
	return nil
}
