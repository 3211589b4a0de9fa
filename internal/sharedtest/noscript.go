package sharedtest

import (
	"strings"

	"golang.org/x/net/html"
)

// TextWithoutScripts is the text a browser without JavaScript shows of an
// HTML page: the page parsed by an HTML5 parser with scripting off (so
// noscript content is markup), script, style and template elements left
// out, and every run of white space made one space. Headless Chromium
// cannot print or dump a page with scripts off, so tests read the
// script-less page this way.
func TextWithoutScripts(page string) (string, error) {
	doc, err := html.ParseWithOptions(strings.NewReader(page), html.ParseOptionEnableScripting(false))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style" || n.Data == "template" || n.Data == "head") {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return strings.Join(strings.Fields(b.String()), " "), nil
}
