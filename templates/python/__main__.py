"""A project and its production environment. The provider reads cloudplatform:baseUrl and the
secret cloudplatform:apiKey from this stack's config (or CLOUDPLATFORM_BASE_URL and
CLOUDPLATFORM_API_KEY)."""
import pulumi
import pulumi_cloudplatform as cloud

project = cloud.Project("project", name="${PROJECT}")
# Named DEV, UAT or PROD (any case), an environment has that tier (`kind`).
production = cloud.Environment("prod", project_id=project.id, name="prod")

pulumi.export("projectId", project.id)
pulumi.export("environmentId", production.id)
pulumi.export("tier", production.kind)  # "PROD"
