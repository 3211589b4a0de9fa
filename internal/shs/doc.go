// Package shs is the Spark History Server REST API (/api/v1) as pure
// functions of the model: given the applications read from event logs and a
// request path with its query, it returns the value the History Server would
// return, or an *Error carrying the History Server's status and message.
//
// The JSON shapes follow Spark's status/api/v1/api.scala (Spark 3.5) field
// for field; Option fields that Spark omits when None are omitted here. The
// numbers are accumulated the way Spark's AppStatusListener and
// LiveEntity accumulate them while replaying a log, and read back the way
// AppStatusStore reads them (including its indexed quantile scan), so that a
// response compares equal, as JSON values, to the real History Server's.
//
// The same functions serve the offline `clusterlens api` command and the
// `clusterlens serve` HTTP server.
package shs
