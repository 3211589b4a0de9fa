// Package assets holds the browser libraries embedded in the binary, one
// copy for the offline HTML report and the web UI: Apache ECharts
// (dist/echarts.min.js of the npm package, its LICENSE, NOTICE and
// LICENSE-d3 beside it), pinned by package.json and package-lock.json and
// refreshed from npm by refresh.sh. Nothing is fetched at run time.
package assets

import _ "embed"

// EChartsJS is Apache ECharts, minified.
//
//go:embed echarts.min.js
var EChartsJS string

// EChartsVersion is the version of EChartsJS; package.json pins the same.
const EChartsVersion = "6.1.0"
