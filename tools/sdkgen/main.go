// sdkgen writes a generated SDK for schema.json with Pulumi's own code generators.
//
//	sdkgen nodejs <schema.json> <out dir>
//	sdkgen python <schema.json> <out dir>
//	sdkgen go <schema.json> <out dir>
//	sdkgen examples <schema.json> < examples.json   (PCL programs in, each in TypeScript, Python, Go and YAML out)
//
// The Go SDK's out dir is a module: sdkgen keeps its go.mod and go.sum (`go mod tidy` maintains
// them) and writes a first go.mod when there is none.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// noLoader serves no other package: the schema references none besides the builtin pulumi.json types.
type noLoader struct{}

func (noLoader) LoadPackage(pkg string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("schema references package %q, which sdkgen cannot load", pkg)
}

func (l noLoader) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return l.LoadPackage(d.Name, d.Version)
}

func (noLoader) LoadPackageReference(pkg string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, fmt.Errorf("schema references package %q, which sdkgen cannot load", pkg)
}

func (l noLoader) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	return l.LoadPackageReference(d.Name, d.Version)
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "examples" {
		if err := runExamples(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "sdkgen:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) != 4 || (os.Args[1] != "nodejs" && os.Args[1] != "python" && os.Args[1] != "go") {
		fmt.Fprintln(os.Stderr, "usage: sdkgen nodejs|python|go <schema.json> <out dir>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "sdkgen:", err)
		os.Exit(1)
	}
}

// loadPackage reads the package schema at schemaPath and binds it.
func loadPackage(schemaPath string) (schema.PackageSpec, *schema.Package, error) {
	var spec schema.PackageSpec
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return spec, nil, err
	}
	if err := json.Unmarshal(raw, &spec); err != nil {
		return spec, nil, fmt.Errorf("%s: %w", schemaPath, err)
	}
	pkg, diags, err := schema.BindSpec(spec, noLoader{}, schema.ValidationOptions{})
	if err != nil {
		return spec, nil, err
	}
	if diags.HasErrors() {
		return spec, nil, diags
	}
	return spec, pkg, nil
}

func run(language, schemaPath, outDir string) error {
	spec, pkg, err := loadPackage(schemaPath)
	if err != nil {
		return err
	}
	var files map[string][]byte
	switch language {
	case "nodejs":
		files, err = nodejs.GeneratePackage("pulumi-cloudplatform-sdkgen", pkg, nil, nil, false, noLoader{})
		if err == nil {
			files, err = embedNodeSDK(files)
		}
	case "python":
		var overlays map[string][]byte
		if overlays, err = readOverlays(filepath.Join(filepath.Dir(schemaPath), "sdk", "overlays", "python")); err != nil {
			return err
		}
		files, err = python.GeneratePackage("pulumi-cloudplatform-sdkgen", pkg, overlays, noLoader{})
		if err == nil {
			files, err = finishPythonSDK(files)
		}
	case "go":
		files, err = gogen.GeneratePackage("pulumi-cloudplatform-sdkgen", pkg, nil)
		if err == nil {
			files, err = goModule(files, pkg, outDir)
		}
	}
	if err == nil {
		files, err = deleteBeforeReplaceDefaults(language, spec, files)
	}
	if err != nil {
		return err
	}
	if err := os.RemoveAll(outDir); err != nil {
		return err
	}
	for name, content := range files {
		path := filepath.Join(outDir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// readOverlays reads the hand-written modules the generated package includes (sdk/overlays/python:
// pulumi_cloudplatform.testing), by their paths inside the package; none when the folder is absent.
func readOverlays(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if os.IsNotExist(err) && path == dir {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() || strings.Contains(path, "__pycache__") {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err == nil {
			files[filepath.ToSlash(rel)], err = os.ReadFile(path)
		}
		return err
	})
	return files, err
}

// finishPythonSDK puts the package's README beside setup.py, which reads it from there into the
// wheel's description.
func finishPythonSDK(files map[string][]byte) (map[string][]byte, error) {
	readme, ok := files[filepath.Join("pulumi_cloudplatform", "README.md")]
	if !ok {
		return nil, fmt.Errorf("pulumi_cloudplatform/README.md: not generated; update sdkgen")
	}
	files["README.md"] = readme
	return files, nil
}

// deleteBeforeReplaceDefaults makes `deleteBeforeReplace` the default option of the resources whose
// schema says so (language.cloudplatform.deleteBeforeReplace): their names are unique, and a forced
// replacement (`pulumi up --replace`), which the engine makes without asking the provider's diff,
// would otherwise create the new object while the old one still holds the name.
func deleteBeforeReplaceDefaults(language string, spec schema.PackageSpec, files map[string][]byte) (map[string][]byte, error) {
	for token, res := range spec.Resources {
		raw, ok := res.Language["cloudplatform"]
		if !ok {
			continue
		}
		var info struct {
			DeleteBeforeReplace bool `json:"deleteBeforeReplace"`
		}
		if err := json.Unmarshal(raw, &info); err != nil {
			return nil, fmt.Errorf("%s: language.cloudplatform: %w", token, err)
		}
		if !info.DeleteBeforeReplace {
			continue
		}
		name := token[strings.LastIndex(token, ":")+1:]
		var file, from, to string
		switch language {
		case "nodejs":
			file = strings.ToLower(name[:1]) + name[1:] + ".ts"
			from = "opts = pulumi.mergeOptions(utilities.resourceOptsDefaults(), opts);"
			to = "opts = pulumi.mergeOptions({ ...utilities.resourceOptsDefaults(), deleteBeforeReplace: true }, opts);"
		case "python":
			file = filepath.Join("pulumi_cloudplatform", snake(name)+".py")
			from = "opts = pulumi.ResourceOptions.merge(_utilities.get_resource_opts_defaults(), opts)"
			to = "opts = pulumi.ResourceOptions.merge(pulumi.ResourceOptions.merge(_utilities.get_resource_opts_defaults(), pulumi.ResourceOptions(delete_before_replace=True)), opts)"
		case "go":
			// Options apply in order: the program's, after the default, win.
			file = filepath.Join("cloudplatform", strings.ToLower(name[:1])+name[1:]+".go")
			from = "opts = internal.PkgResourceDefaultOpts(opts)"
			to = "opts = internal.PkgResourceDefaultOpts(append([]pulumi.ResourceOption{pulumi.DeleteBeforeReplace(true)}, opts...))"
		default:
			continue
		}
		content, ok := files[file]
		if !ok || strings.Count(string(content), from) != 1 {
			return nil, fmt.Errorf("%s: the generated options merge has changed; update sdkgen", file)
		}
		files[file] = []byte(strings.Replace(string(content), from, to, 1))
	}
	return files, nil
}

// snake turns DnsRecordSet into dns_record_set, as the Python generator names modules.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// embedNodeSDK fits the Node SDK into the pulumi-cloudplatform package as its native/ entry point:
// the package's own package.json and tsconfig apply, and the SDK asks for the package's version.
func embedNodeSDK(files map[string][]byte) (map[string][]byte, error) {
	const versionLookup = "require('./package.json').version"
	out := map[string][]byte{}
	for name, content := range files {
		switch name {
		case "package.json", "tsconfig.json", ".gitignore", ".gitattributes":
			continue
		case "utilities.ts":
			if !strings.Contains(string(content), versionLookup) {
				return nil, fmt.Errorf("utilities.ts: the generated version lookup has changed; update sdkgen")
			}
			content = []byte(strings.Replace(string(content), versionLookup, "require('pulumi-cloudplatform/package.json').version", 1))
		}
		// @pulumi/pulumi's base classes declare isInstance too; the package compiles with noImplicitOverride.
		content = []byte(strings.ReplaceAll(string(content), "    public static isInstance(", "    public static override isInstance("))
		out[name] = content
	}
	return out, nil
}

// pulumiSDK is the Go SDK release the generated module asks for: the one this generator is built on.
const pulumiSDK = "github.com/pulumi/pulumi/sdk/v3 v3.248.0"

// goModule makes the Go SDK a module rooted at the out dir: the module path is the import base
// path's parent (the package sits in a folder of its own name), and an existing go.mod and go.sum
// are carried over as they are.
func goModule(files map[string][]byte, pkg *schema.Package, outDir string) (map[string][]byte, error) {
	info, _ := pkg.Language["go"].(gogen.GoPackageInfo)
	if info.ImportBasePath == "" {
		return nil, fmt.Errorf("schema.json: language.go.importBasePath is required")
	}
	kept := false
	for _, name := range []string{"go.mod", "go.sum"} {
		content, err := os.ReadFile(filepath.Join(outDir, name))
		if err == nil {
			files[name] = content
			kept = kept || name == "go.mod"
		} else if !os.IsNotExist(err) {
			return nil, err
		}
	}
	if !kept {
		module := filepath.ToSlash(filepath.Dir(info.ImportBasePath))
		files["go.mod"] = []byte(fmt.Sprintf("module %s\n\ngo 1.24\n\nrequire %s\n", module, pulumiSDK))
	}
	return files, nil
}
