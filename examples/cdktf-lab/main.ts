// cdktf-lab: two stacks of one CDK for Terraform app, written in TypeScript. Only
// terraform_data is used, which OpenTofu builds in, so no provider is downloaded and
// `cdktf get` has nothing to generate.
import { App, TerraformResource, TerraformStack, TerraformVariable } from "cdktf";
import { Construct } from "constructs";

class Lab extends TerraformStack {
  constructor(scope: Construct, id: string, greeting: string, notes: string) {
    super(scope, id);
    // Marked sensitive; Sluiceway never shows it, marked or not.
    const secret = new TerraformVariable(this, "secret", {
      type: "string",
      sensitive: true,
      default: "CANARY-SECRET",
    });
    // A new input changes it in place.
    const config = new TerraformResource(this, "config", {
      terraformResourceType: "terraform_data",
    });
    config.addOverride("input", {
      greeting,
      canary: "CANARY-VALUE",
      secret: secret.stringValue,
    });
    // A new replacing trigger replaces it.
    const notesData = new TerraformResource(this, "notes", {
      terraformResourceType: "terraform_data",
    });
    notesData.addOverride("input", `CANARY-VALUE ${notes}`);
    notesData.addOverride("triggers_replace", [notes]);
  }
}

const app = new App();
new Lab(app, "dev", "hello", "first notes");
new Lab(app, "prod", "hello", "first notes");
app.synth();
