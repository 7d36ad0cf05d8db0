module github.com/pulumi-cloudplatform/pulumi-cloudplatform/tools/gomodule

go 1.25.11

require golang.org/x/mod v0.38.0
