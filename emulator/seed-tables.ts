/** Tables the emulator seeds at start; a reset keeps them so the printed keys stay valid. */
export const IDENTITY_TABLES = ["users", "workspaces", "members", "apiKeys", "seed", "storageAccessKeys", "sessions"];
