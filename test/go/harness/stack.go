// Package harness opens the Automation API stack the Go test programs run in: the CLI of
// PULUMI_ROOT, the test's PULUMI_HOME and WORK_DIR, a passphrase, and only the PULUMI_*,
// CLOUDPLATFORM_* and PATH variables of the test's environment.
package harness

import (
	"context"
	"os"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// InlineStack creates or selects the stack `stackName` of project `project` running `program` inline.
func InlineStack(ctx context.Context, stackName, project string, program pulumi.RunFunc) (auto.Stack, error) {
	cmd, err := auto.NewPulumiCommand(&auto.PulumiCommandOptions{Root: os.Getenv("PULUMI_ROOT"), SkipVersionCheck: true})
	if err != nil {
		return auto.Stack{}, err
	}
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PULUMI_") || strings.HasPrefix(k, "CLOUDPLATFORM_") || k == "PATH" {
			env[k] = v
		}
	}
	return auto.UpsertStackInlineSource(ctx, stackName, project, program,
		auto.Pulumi(cmd), auto.WorkDir(os.Getenv("WORK_DIR")), auto.PulumiHome(os.Getenv("PULUMI_HOME")),
		auto.EnvVars(env), auto.SecretsProvider("passphrase"))
}
