// A Go program on the generated Go SDK, run as an Automation API inline program (no Go language
// host is needed), with the plugin installed from its release archive into PULUMI_HOME: a Project
// with an Environment goes through up, an empty preview and destroy. Run by
// test/packaging/install-from-archive.test.ts from a folder outside the checkout; prints one JSON line.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/pulumi-cloudplatform/pulumi-cloudplatform/sdk/go/cloudplatform"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optremove"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func program(ctx *pulumi.Context) error {
	project, err := cloudplatform.NewProject(ctx, "app", &cloudplatform.ProjectArgs{Name: pulumi.String("archive-go")})
	if err != nil {
		return err
	}
	env, err := cloudplatform.NewEnvironment(ctx, "prod", &cloudplatform.EnvironmentArgs{ProjectId: project.ID(), Name: pulumi.String("prod")})
	if err != nil {
		return err
	}
	ctx.Export("kind", env.Kind)
	return nil
}

func changes(m map[string]int) map[string]int {
	out := map[string]int{}
	for op, n := range m {
		if op != "same" && n > 0 {
			out[op] = n
		}
	}
	return out
}

func run(ctx context.Context) (map[string]any, error) {
	cmd, err := auto.NewPulumiCommand(&auto.PulumiCommandOptions{Root: os.Getenv("PULUMI_ROOT"), SkipVersionCheck: true})
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PULUMI_") || strings.HasPrefix(k, "CLOUDPLATFORM_") || k == "PATH" {
			env[k] = v
		}
	}
	stack, err := auto.UpsertStackInlineSource(ctx, "archive", "archive-go", program,
		auto.Pulumi(cmd), auto.WorkDir(os.Getenv("WORK_DIR")), auto.PulumiHome(os.Getenv("PULUMI_HOME")),
		auto.EnvVars(env), auto.SecretsProvider("passphrase"))
	if err != nil {
		return nil, err
	}
	defer stack.Workspace().RemoveStack(ctx, stack.Name(), optremove.Force())
	seen := map[string]any{}
	up, err := stack.Up(ctx)
	if err != nil {
		return nil, err
	}
	seen["up"] = changes(*up.Summary.ResourceChanges)
	seen["kind"] = up.Outputs["kind"].Value
	pre, err := stack.Preview(ctx, optpreview.Refresh(), optpreview.ExpectNoChanges())
	if err != nil {
		return nil, err
	}
	summary := map[string]int{}
	for op, n := range pre.ChangeSummary {
		summary[string(op)] = n
	}
	seen["preview"] = changes(summary)
	down, err := stack.Destroy(ctx)
	if err != nil {
		return nil, err
	}
	seen["destroy"] = changes(*down.Summary.ResourceChanges)
	return seen, nil
}

func main() {
	seen, err := run(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	line, _ := json.Marshal(seen)
	fmt.Println(string(line))
}
