// Package driver composes clusterlens's analyses from what a user names:
// the applications read from the logs, a source of node metrics (files,
// a folder, a Prometheus server or a sample store), the run history (its
// node models, its node assessment, its past runs to predict from), a
// peer profile and baseline. The command line (cli), the web UI (web,
// through server) and the live views ask it, each with one call per
// question, and present what it answers; it presents nothing itself.
// pprof's driver, which composes once for pprof's command line and its
// web UI, is the model (docs/ARCHITECTURE.md).
package driver
