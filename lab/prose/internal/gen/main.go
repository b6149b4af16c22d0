// Command gen renders the lab's Markdown with glamour for every width the
// lesson pane can have and writes ../../rendered.zip (go generate
// ./lab/prose runs it from the package directory).
//
// It imports lab/prose and lab/prose/internal/render only.
package main

import (
	"archive/zip"
	"fmt"
	"os"

	"natslab/lab/prose"
	"natslab/lab/prose/internal/render"
)

func main() {
	if err := run("rendered.zip"); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	docs, err := render.Texts()
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	for _, d := range docs {
		byWidth, err := render.AllWidths(d.Markdown)
		if err != nil {
			return fmt.Errorf("%s: %w", d.Name, err)
		}
		// No modification time: the archive depends on the texts alone.
		w, err := zw.CreateHeader(&zip.FileHeader{Name: prose.EntryName(d.Name, d.Markdown), Method: zip.Deflate})
		if err != nil {
			return err
		}
		if err := prose.Encode(w, byWidth); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}
