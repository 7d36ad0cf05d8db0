"""A project with two environments, the Python twin of examples/quickstart."""
import pulumi
import pulumi_cloudplatform as cloud

config = pulumi.Config()

project = cloud.Project(
    "shop",
    name=config.get("projectName") or "shop",
    display_name="Shop",
    description=config.get("description") or "Storefront and its back office",
)

production = cloud.Environment("production", project_id=project.id, name="production")
staging = cloud.Environment("staging", project_id=project.id, name="staging")

pulumi.export("projectId", project.id)
pulumi.export("region", project.region)
pulumi.export("environments", {"production": production.id, "staging": staging.id})
