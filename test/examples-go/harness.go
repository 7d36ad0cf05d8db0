// An example's Go program run as an Automation API inline program (no Go language host can be had
// here). test/lifecycle/quickstart-languages.test.ts builds this file in one package with a copy
// of the example's main.go whose `func main` is renamed exampleMain and whose `pulumi.Run` is
// `capture`, so the example's own function is what runs: up, an empty preview with a refresh,
// destroy. Prints one JSON line of what it saw; exits non-zero on any failure.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

var program pulumi.RunFunc

// capture stands for pulumi.Run in the example: it keeps the program instead of running it.
func capture(run pulumi.RunFunc, _ ...pulumi.RunOption) {
	program = run
}

func changes(summary map[string]int) map[string]int {
	out := map[string]int{}
	for op, n := range summary {
		if op != "same" && n > 0 {
			out[op] = n
		}
	}
	return out
}

func main() {
	exampleMain()
	if program == nil {
		fail(fmt.Errorf("the example did not call pulumi.Run"))
	}
	ctx := context.Background()
	cmd, err := auto.NewPulumiCommand(&auto.PulumiCommandOptions{Root: os.Getenv("PULUMI_ROOT"), SkipVersionCheck: true})
	if err != nil {
		fail(err)
	}
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PULUMI_") || strings.HasPrefix(k, "CLOUDPLATFORM_") || k == "PATH" {
			env[k] = v
		}
	}
	stack, err := auto.UpsertStackInlineSource(ctx, "dev", os.Getenv("PROJECT"), program,
		auto.Pulumi(cmd), auto.WorkDir(os.Getenv("WORK_DIR")), auto.PulumiHome(os.Getenv("PULUMI_HOME")),
		auto.EnvVars(env), auto.SecretsProvider("passphrase"))
	if err != nil {
		fail(err)
	}
	defer func() { _ = stack.Workspace().RemoveStack(ctx, "dev") }()
	seen := map[string]any{}
	up, err := stack.Up(ctx)
	if err != nil {
		fail(err)
	}
	seen["up"] = changes(*up.Summary.ResourceChanges)
	outputs := []string{}
	for k := range up.Outputs {
		outputs = append(outputs, k)
	}
	sort.Strings(outputs)
	seen["outputs"] = outputs
	preview, err := stack.Preview(ctx, optpreview.Refresh(), optpreview.ExpectNoChanges())
	if err != nil {
		fail(err)
	}
	pv := map[string]int{}
	for op, n := range preview.ChangeSummary {
		pv[string(op)] = n
	}
	seen["preview"] = changes(pv)
	down, err := stack.Destroy(ctx)
	if err != nil {
		fail(err)
	}
	seen["destroy"] = changes(*down.Summary.ResourceChanges)
	line, _ := json.Marshal(seen)
	fmt.Println(string(line))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "go example failed:", err)
	os.Exit(1)
}
