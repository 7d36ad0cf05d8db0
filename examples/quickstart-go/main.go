// A project with two environments, the Go twin of examples/quickstart.
package main

import (
	"github.com/pulumi-cloudplatform/pulumi-cloudplatform/sdk/go/cloudplatform"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		name := cfg.Get("projectName")
		if name == "" {
			name = "shop"
		}
		description := cfg.Get("description")
		if description == "" {
			description = "Storefront and its back office"
		}
		project, err := cloudplatform.NewProject(ctx, "shop", &cloudplatform.ProjectArgs{
			Name:        pulumi.String(name),
			DisplayName: pulumi.String("Shop"),
			Description: pulumi.String(description),
		})
		if err != nil {
			return err
		}
		production, err := cloudplatform.NewEnvironment(ctx, "production", &cloudplatform.EnvironmentArgs{
			ProjectId: project.ID(),
			Name:      pulumi.String("production"),
		})
		if err != nil {
			return err
		}
		staging, err := cloudplatform.NewEnvironment(ctx, "staging", &cloudplatform.EnvironmentArgs{
			ProjectId: project.ID(),
			Name:      pulumi.String("staging"),
		})
		if err != nil {
			return err
		}
		ctx.Export("projectId", project.ID())
		ctx.Export("region", project.Region)
		ctx.Export("environments", pulumi.StringMap{"production": production.ID().ToStringOutput(), "staging": staging.ID().ToStringOutput()})
		return nil
	})
}
