package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/syntax"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// GenerateProgram turns PCL (what `pulumi import` and `pulumi convert` produce) into a program in
// the host's language (TypeScript, Python or Go) with the SDK release's own code generators;
// schemas come from the engine's loader.
func (h *host) GenerateProgram(
	_ context.Context, req *pulumirpc.GenerateProgramRequest,
) (*pulumirpc.GenerateProgramResponse, error) {
	loader, err := schema.NewLoaderClient(req.LoaderTarget)
	if err != nil {
		return nil, fmt.Errorf("connecting to the schema loader: %w", err)
	}
	defer loader.Close()

	parser := syntax.NewParser()
	names := make([]string, 0, len(req.Source))
	for name := range req.Source {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := parser.ParseFile(strings.NewReader(req.Source[name]), name); err != nil {
			return nil, err
		}
	}
	if parser.Diagnostics.HasErrors() {
		return &pulumirpc.GenerateProgramResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(parser.Diagnostics)}, nil
	}

	var opts []pcl.BindOption
	if !req.Strict {
		opts = pcl.NonStrictBindOptions()
	}
	program, diags, err := pcl.BindProgram(parser.Files, schema.NewCachedLoader(loader), opts...)
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() || program == nil {
		return &pulumirpc.GenerateProgramResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags)}, nil
	}
	generate := map[string]func(*pcl.Program) (map[string][]byte, hcl.Diagnostics, error){
		"nodejs": nodejs.GenerateProgram,
		"python": python.GenerateProgram,
		"go":     gogen.GenerateProgram,
	}[h.language]
	files, genDiags, err := generate(program)
	if err != nil {
		return nil, err
	}
	diags = append(diags, genDiags...)
	return &pulumirpc.GenerateProgramResponse{Source: files, Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags)}, nil
}
