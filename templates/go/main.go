// A project and its production environment. The provider reads cloudplatform:baseUrl and the
// secret cloudplatform:apiKey from this stack's config (or CLOUDPLATFORM_BASE_URL and
// CLOUDPLATFORM_API_KEY).
package main

import (
	"github.com/pulumi-cloudplatform/pulumi-cloudplatform/sdk/go/cloudplatform"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		project, err := cloudplatform.NewProject(ctx, "project", &cloudplatform.ProjectArgs{
			Name: pulumi.String("${PROJECT}"),
		})
		if err != nil {
			return err
		}
		// Named DEV, UAT or PROD (any case), an environment has that tier (Kind).
		production, err := cloudplatform.NewEnvironment(ctx, "prod", &cloudplatform.EnvironmentArgs{
			ProjectId: project.ID(),
			Name:      pulumi.String("prod"),
		})
		if err != nil {
			return err
		}
		ctx.Export("projectId", project.ID())
		ctx.Export("environmentId", production.ID())
		ctx.Export("tier", production.Kind) // "PROD"
		return nil
	})
}
