// Command gomodule lays a Go module out as a module proxy serves it (the GOPROXY protocol), for a
// release: <out>/<escaped module path>/@v/ gets list, v<version>.info, .mod and .zip, the zip made
// by golang.org/x/mod/zip, which checks it as the go command will. The folder then serves as
// GOPROXY=file://<out>, and its files are what a proxy would hand out for the module's release tag.
//
//	gomodule <module dir> <version> <out>
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	modzip "golang.org/x/mod/zip"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: gomodule <module dir> <version> <out>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintf(os.Stderr, "gomodule: %v\n", err)
		os.Exit(1)
	}
}

func run(dir, version, out string) error {
	if !semver.IsValid(version) {
		return fmt.Errorf("%s is not a semantic version (v1.2.3)", version)
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	path := modfile.ModulePath(gomod)
	if path == "" {
		return fmt.Errorf("%s/go.mod names no module", dir)
	}
	mv := module.Version{Path: path, Version: version}
	if err := module.Check(path, version); err != nil {
		return err
	}
	escaped, err := module.EscapePath(path)
	if err != nil {
		return err
	}
	at := filepath.Join(out, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	zip, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		return err
	}
	if err := modzip.CreateFromDir(zip, mv, dir); err != nil {
		zip.Close()
		return err
	}
	if err := zip.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(at, version+".mod"), gomod, 0o644); err != nil {
		return err
	}
	info, err := json.Marshal(map[string]string{"Version": version, "Time": time.Now().UTC().Format(time.RFC3339)})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(at, version+".info"), info, 0o644); err != nil {
		return err
	}
	// The versions the proxy lists: this one, beside any already there.
	list := filepath.Join(at, "list")
	known, _ := os.ReadFile(list)
	versions := []string{version}
	for _, v := range strings.Fields(string(known)) {
		if v != version {
			versions = append(versions, v)
		}
	}
	semver.Sort(versions)
	if err := os.WriteFile(list, []byte(strings.Join(versions, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	fmt.Println(filepath.Join(at, version+".zip"))
	return nil
}
