// The Go program `pulumi import` generated for an adopted workspace, previewed as an Automation API
// inline program in the stack the import made (no Go language host can be had here).
// test/lifecycle/adopt.test.ts builds this file in one package with a copy of the generated
// main.go whose `func main` is renamed adoptedMain and whose `pulumi.Run` is `capture`, so the
// program's own function is what runs. Prints one JSON line of what it saw; exits non-zero on any
// failure.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

var program pulumi.RunFunc

// capture stands for pulumi.Run in the generated program: it keeps the program instead of running it.
func capture(run pulumi.RunFunc, _ ...pulumi.RunOption) {
	program = run
}

func main() {
	adoptedMain()
	if program == nil {
		fmt.Fprintln(os.Stderr, "the generated program did not call pulumi.Run")
		os.Exit(1)
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
	stack, err := auto.SelectStackInlineSource(ctx, os.Getenv("STACK"), os.Getenv("PROJECT"), program,
		auto.Pulumi(cmd), auto.WorkDir(os.Getenv("WORK_DIR")), auto.PulumiHome(os.Getenv("PULUMI_HOME")),
		auto.EnvVars(env), auto.SecretsProvider("passphrase"))
	if err != nil {
		fail(err)
	}
	preview, err := stack.Preview(ctx, optpreview.ExpectNoChanges(), optpreview.Diff())
	if err != nil {
		fail(err)
	}
	changes := map[string]int{}
	for op, n := range preview.ChangeSummary {
		if op != "same" && n > 0 {
			changes[string(op)] = n
		}
	}
	out, _ := json.Marshal(map[string]any{"preview": changes})
	fmt.Println(string(out))
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "adopted Go program preview failed: %v\n", err)
	os.Exit(1)
}
