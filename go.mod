module github.com/clusterlens/clusterlens

go 1.26.8

require (
	github.com/google/go-cmp v0.7.0
	github.com/linkedin/goavro/v2 v2.15.0
	github.com/spf13/cobra v1.10.2
)

require (
	github.com/golang/snappy v0.0.1 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/schollz/progressbar/v3 v3.19.1 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/term v0.47.0 // indirect
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/klauspost/compress v1.20.3
	github.com/pierrec/lz4/v4 v4.1.33
	github.com/spf13/pflag v1.0.9 // indirect
)
