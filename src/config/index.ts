export { defineConfig } from './define-config.ts'
export { CONFIG_FILE_NAMES, findConfigFile } from './find-config.ts'
export {
  configStamp,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
  validateConfig,
} from './load-config.ts'
export { mergeConfig } from './merge-config.ts'
export {
  type CrashlabConfig,
  CrashlabConfigSchema,
  McpConfigSchema,
  RedactionConfigSchema,
  StoreConfigSchema,
} from './schema.ts'
