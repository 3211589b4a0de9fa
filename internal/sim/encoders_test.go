package sim

import (
	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/mapreduce"
)

// testEncoders are the project's encoders.
var testEncoders = Encoders{
	SparkFile: eventlog.WriteFile, SparkRolling: eventlog.WriteRolling, RollingDirName: eventlog.RollingDirName,
	Jhist: mapreduce.WriteJhist, Conf: mapreduce.WriteConf,
}
