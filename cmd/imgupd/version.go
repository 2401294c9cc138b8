package main

import "runtime/debug"

// version is set at build time with -ldflags "-X main.version=v0.1.0".
var version = ""

// buildVersion is the binary's version, which reaches `imgupd version` (commands/version) as
// command.IO.Version: the linker's, else the module's, else "dev".
func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
