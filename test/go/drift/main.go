// The drift tests' stack in Go (test/programs/drift-app in TypeScript): a project whose
// description is under ignoreChanges, a service with a plain and a secret env var, a DNS record
// and a bucket with CORS rules, through the native plugin, as an Automation API inline program.
// Run by test/drift/lifecycle.test.ts: `up` only (the stack stays for cloudplatform-drift to check
// without running this program); prints the stack's outputs as one JSON line.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/pulumi-cloudplatform/pulumi-cloudplatform/test/go/harness"
	"os"

	"github.com/pulumi-cloudplatform/pulumi-cloudplatform/sdk/go/cloudplatform"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func program(ctx *pulumi.Context) error {
	cfg := config.New(ctx, "")
	tag := cfg.Require("tag")
	project, err := cloudplatform.NewProject(ctx, "app", &cloudplatform.ProjectArgs{
		Name: pulumi.String("drift-" + tag), Description: pulumi.String("managed"),
	}, pulumi.IgnoreChanges([]string{"description"}))
	if err != nil {
		return err
	}
	env, err := cloudplatform.NewEnvironment(ctx, "production", &cloudplatform.EnvironmentArgs{ProjectId: project.ID(), Name: pulumi.String("production")})
	if err != nil {
		return err
	}
	web, err := cloudplatform.NewService(ctx, "web", &cloudplatform.ServiceArgs{
		EnvironmentId: env.ID(), Name: pulumi.String("web"), Type: pulumi.String("WEB"), Image: pulumi.String("nginx:1.27"), Timeout: pulumi.String("2m"),
		EnvVars: cloudplatform.ServiceEnvVarArray{
			cloudplatform.ServiceEnvVarArgs{Key: pulumi.String("MODE"), Value: pulumi.String("production")},
			cloudplatform.ServiceEnvVarArgs{Key: pulumi.String("TOKEN"), Value: cfg.RequireSecret("token"), Secret: pulumi.Bool(true)},
		},
	})
	if err != nil {
		return err
	}
	zone, err := cloudplatform.NewDnsZone(ctx, "zone", &cloudplatform.DnsZoneArgs{Name: pulumi.String("drift-" + tag + ".test")})
	if err != nil {
		return err
	}
	www, err := cloudplatform.NewDnsRecord(ctx, "www", &cloudplatform.DnsRecordArgs{
		ZoneId: zone.ID(), Name: pulumi.String("www"), Type: pulumi.String("CNAME"), Content: pulumi.String("app.example.com"),
	})
	if err != nil {
		return err
	}
	assets, err := cloudplatform.NewBucket(ctx, "assets", &cloudplatform.BucketArgs{
		Name: pulumi.String("drift-" + tag + "-assets"),
		CorsRules: cloudplatform.CorsRuleArray{cloudplatform.CorsRuleArgs{
			AllowedMethods: pulumi.StringArray{pulumi.String("GET")}, AllowedOrigins: pulumi.StringArray{pulumi.String("https://shop.example.com")},
		}},
	})
	if err != nil {
		return err
	}
	ctx.Export("projectId", project.ID())
	ctx.Export("serviceId", web.ID())
	ctx.Export("zoneId", zone.ID())
	ctx.Export("recordId", www.ID())
	ctx.Export("bucket", assets.Name)
	return nil
}

func run(ctx context.Context) (map[string]any, error) {
	stack, err := harness.InlineStack(ctx, os.Getenv("STACK"), "drift-go", program)
	if err != nil {
		return nil, err
	}
	if err := stack.SetConfig(ctx, "tag", auto.ConfigValue{Value: os.Getenv("TAG")}); err != nil {
		return nil, err
	}
	if err := stack.SetConfig(ctx, "token", auto.ConfigValue{Value: os.Getenv("TOKEN"), Secret: true}); err != nil {
		return nil, err
	}
	up, err := stack.Up(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for k, v := range up.Outputs {
		out[k] = v.Value
	}
	return out, nil
}

func main() {
	out, err := run(context.Background())
	if err != nil {
		fmt.Fprintf(os.Stderr, "go drift stack failed: %v\n", err)
		os.Exit(1)
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
}
