package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The lookup agrees with Node's require.resolve wherever it answers, and leaves to Node what it
// cannot answer by its simple rules. build-pulumi.sh runs this before it builds the host.
func TestNodeModulesLookup(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A scoped package with an index.js subpath and a .js subpath, found from a nested folder.
	write("app/node_modules/@sdk/core/package.json", `{"name":"@sdk/core","main":"index.js"}`)
	write("app/node_modules/@sdk/core/index.js", "")
	write("app/node_modules/@sdk/core/cmd/run/index.js", "")
	write("app/node_modules/@sdk/core/cmd/tool.js", "")
	write("app/src/deep/.keep", "")
	// The same package linked from elsewhere: the answer is the real path.
	write("store/@sdk/linked/package.json", `{"name":"@sdk/linked"}`)
	write("store/@sdk/linked/cmd/run/index.js", "")
	if err := os.Symlink(filepath.Join(root, "store/@sdk/linked"), filepath.Join(root, "app/node_modules/@sdk/linked")); err != nil {
		t.Fatal(err)
	}
	// Left to Node: an exports map, a subpath folder with its own package.json, an unscoped name.
	write("app/node_modules/@sdk/mapped/package.json", `{"name":"@sdk/mapped","exports":{"./cmd/run":"./lib/run.js"}}`)
	write("app/node_modules/@sdk/mapped/lib/run.js", "")
	write("app/node_modules/@sdk/mapped/cmd/run/index.js", "") // not what the exports map names
	write("app/node_modules/@sdk/folder/package.json", `{"name":"@sdk/folder"}`)
	write("app/node_modules/@sdk/folder/cmd/run/package.json", `{"main":"main.js"}`)
	write("app/node_modules/@sdk/folder/cmd/run/main.js", "")
	write("app/node_modules/@sdk/folder/cmd/run/index.js", "") // not the folder's main
	write("app/node_modules/plain/package.json", `{"name":"plain"}`)
	write("app/node_modules/plain/cmd/run.js", "")

	from := filepath.Join(root, "app/src/deep")
	want := map[string]string{
		"@sdk/core/cmd/run":    filepath.Join(root, "app/node_modules/@sdk/core/cmd/run/index.js"),
		"@sdk/core/cmd/tool":   filepath.Join(root, "app/node_modules/@sdk/core/cmd/tool.js"),
		"@sdk/linked/cmd/run":  filepath.Join(root, "store/@sdk/linked/cmd/run/index.js"),
		"@sdk/mapped/cmd/run":  "",
		"@sdk/folder/cmd/run":  "",
		"plain/cmd/run":        "",
		"@sdk/missing/cmd/run": "",
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	for module, expected := range want {
		got := nodeModulesLookup(from, module)
		if got != "" {
			got = strings.Replace(got, real, root, 1)
		}
		if got != expected {
			t.Errorf("%s: got %q, want %q", module, got, expected)
		}
		// Node itself, when it is installed, must give the same answer wherever the lookup gives one.
		if _, err := exec.LookPath("node"); err == nil && expected != "" {
			cmd := exec.Command("node", "-e", "process.stdout.write(require.resolve(process.argv[1]))", module)
			cmd.Dir = from
			out, err := cmd.Output()
			if err != nil || strings.Replace(string(out), real, root, 1) != expected {
				t.Errorf("%s: node resolves %q (%v), the lookup %q", module, out, err, expected)
			}
		}
	}
}
