// Package version carries the build's version, set with -ldflags at build time.
package version

// Version is the swaprouter version; "dev" for builds without ldflags.
var Version = "dev"
