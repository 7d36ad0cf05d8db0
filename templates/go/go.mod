module ${PROJECT}

go 1.25.11

require github.com/pulumi/pulumi/sdk/v3 v3.248.0
