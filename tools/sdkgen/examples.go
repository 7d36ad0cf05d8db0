package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/blang/semver"
	"github.com/hashicorp/hcl/v2"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/syntax"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// pkgLoader serves the one package the examples use, bound from schema.json.
type pkgLoader struct{ pkg *schema.Package }

func (l pkgLoader) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	if name != l.pkg.Name {
		return nil, fmt.Errorf("examples may use only package %q, not %q", l.pkg.Name, name)
	}
	return l.pkg, nil
}

func (l pkgLoader) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return l.LoadPackage(d.Name, d.Version)
}

func (l pkgLoader) LoadPackageReference(name string, v *semver.Version) (schema.PackageReference, error) {
	p, err := l.LoadPackage(name, v)
	if err != nil {
		return nil, err
	}
	return p.Reference(), nil
}

func (l pkgLoader) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	return l.LoadPackageReference(d.Name, d.Version)
}

// examples reads {"<name>": "<PCL program>", ...} on stdin and writes
// {"<name>": {"typescript": ..., "python": ..., "go": ..., "yaml": ...}, ...}: each program in every
// language, by the same code generators `pulumi convert` and `pulumi import` use.
func examples(pkg *schema.Package, in io.Reader, out io.Writer) error {
	var sources map[string]string
	if err := json.NewDecoder(in).Decode(&sources); err != nil {
		return fmt.Errorf("reading the examples (a JSON object of PCL programs): %w", err)
	}
	names := make([]string, 0, len(sources))
	for name := range sources {
		names = append(names, name)
	}
	sort.Strings(names)
	generators := map[string]func(*pcl.Program) (map[string][]byte, hcl.Diagnostics, error){
		"typescript": nodejs.GenerateProgram,
		"python":     python.GenerateProgram,
		"go":         gogen.GenerateProgram,
	}
	yaml, err := startYAMLHost(pkg)
	if err != nil {
		return err
	}
	defer yaml.close()
	result := map[string]map[string]string{}
	for _, name := range names {
		if result[name] == nil {
			result[name] = map[string]string{}
		}
		if result[name]["yaml"], err = yaml.generate(name, sources[name]); err != nil {
			return err
		}
		for language, generate := range generators {
			// Each generator rewrites the bound program as it goes, so each binds its own.
			program, err := bind(pkg, name, sources[name])
			if err != nil {
				return err
			}
			files, diags, err := generate(program)
			if err != nil {
				return fmt.Errorf("%s (%s): %w", name, language, err)
			}
			if diags.HasErrors() {
				return fmt.Errorf("%s (%s): %s", name, language, diags.Error())
			}
			if len(files) != 1 {
				return fmt.Errorf("%s (%s): expected one file, got %d", name, language, len(files))
			}
			for _, content := range files {
				result[name][language] = string(content)
			}
			if language == "go" {
				result[name][language] = goLookups(pkg, result[name][language])
			}
		}
	}
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(result)
}

// goLookups names functions as the Go SDK does. A `getX` whose X is also a resource is `LookupX`
// in the SDK (its GetX is the resource getter), and the program generator applies that rule only to
// `pkg:index/getX:getX` tokens, not to this package's `pkg:index:getX`.
func goLookups(pkg *schema.Package, code string) string {
	resources := map[string]bool{}
	for _, r := range pkg.Resources {
		resources[r.Token[strings.LastIndex(r.Token, ":")+1:]] = true
	}
	for _, f := range pkg.Functions {
		member := f.Token[strings.LastIndex(f.Token, ":")+1:]
		if !strings.HasPrefix(member, "get") || !resources[member[3:]] {
			continue
		}
		get := regexp.MustCompile(`\bcloudplatform\.Get` + member[3:] + `\b|\bcloudplatform\.Get` + member[3:] + `(Args|Result|Output|OutputArgs|ResultOutput)\b`)
		code = get.ReplaceAllStringFunc(code, func(m string) string { return strings.Replace(m, ".Get", ".Lookup", 1) })
	}
	return code
}

func bind(pkg *schema.Package, name, source string) (*pcl.Program, error) {
	parser := syntax.NewParser()
	if err := parser.ParseFile(strings.NewReader(source), name+".pp"); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if parser.Diagnostics.HasErrors() {
		return nil, fmt.Errorf("%s: %s", name, parser.Diagnostics.Error())
	}
	// The Output form of every function: its result is an Output the program can export as it is.
	program, diags, err := pcl.BindProgram(parser.Files, pkgLoader{pkg}, pcl.PreferOutputVersionedInvokes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s: %s", name, diags.Error())
	}
	return program, nil
}

func runExamples(schemaPath string) error {
	_, pkg, err := loadPackage(schemaPath)
	if err != nil {
		return err
	}
	return examples(pkg, os.Stdin, os.Stdout)
}
