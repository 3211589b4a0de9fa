package sim

// testEncoders are the encoders tests write logs with (none until the
// eventlog and mapreduce encoders exist).
var testEncoders = Encoders{}
