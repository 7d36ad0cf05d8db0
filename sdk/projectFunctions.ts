// getProject and getEnvironment (by id), with their Output forms; they run the provider's own
// implementations in the program's process.
import { getProject as project } from "../provider/resources/project";
import { getEnvironment as environment } from "../provider/resources/environment";
import { invokeFunction, outputForm } from "./functions";
import type { GetEnvironmentArgs, GetEnvironmentResult, GetProjectArgs, GetProjectResult } from "./types";

/** Looks up a project by id. */
export const getProject = (args: GetProjectArgs): Promise<GetProjectResult> => invokeFunction(project, args);
export const getProjectOutput = outputForm(getProject);

/** Looks up an environment by id. */
export const getEnvironment = (args: GetEnvironmentArgs): Promise<GetEnvironmentResult> => invokeFunction(environment, args);
export const getEnvironmentOutput = outputForm(getEnvironment);
