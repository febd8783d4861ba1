// Package web is the web console (operator console and partner portal), built by Vite into
// dist/console and embedded in the binary.
package web

import (
	"embed"
	"io/fs"
)

//go:embed all:dist
var dist embed.FS

// Console is the built console, or nil when it was not built (make web).
func Console() fs.FS {
	console, err := fs.Sub(dist, "dist/console")
	if err != nil {
		return nil
	}
	if _, err := fs.Stat(console, "index.html"); err != nil {
		return nil
	}
	return console
}
