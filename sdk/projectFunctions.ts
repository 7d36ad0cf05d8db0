// getProject and getEnvironment (by id), with their Output forms; they run the provider's own
// implementations in the program's process.
import { getProject as project } from "../provider/resources/project";
import { getEnvironment as environment } from "../provider/resources/environment";
import { functionContext, outputForm } from "./functions";
import type { GetEnvironmentArgs, GetEnvironmentResult, GetProjectArgs, GetProjectResult } from "./types";

/** Looks up a project by id. */
export const getProject = (args: GetProjectArgs): Promise<GetProjectResult> => project.invoke(functionContext(), args);
export const getProjectOutput = outputForm(getProject);

/** Looks up an environment by id. */
export const getEnvironment = (args: GetEnvironmentArgs): Promise<GetEnvironmentResult> => environment.invoke(functionContext(), args);
export const getEnvironmentOutput = outputForm(getEnvironment);
