/*
 * `@app/platform/config`: the light entry of the configuration (no Nest, no database): the helpers every
 * lib's config class is built with and the platform's own keys. A server's main() validates the whole
 * environment with it before it loads the application's modules.
 */
export {
  ConfigDoc,
  configKeys,
  describeConfig,
  emptyToUndefined,
  HOST_LIST_MESSAGE,
  HOST_LIST_PATTERN,
  InvalidEnvironmentError,
  optionalNumber,
  readConfig,
  toBoolean,
  toNumber,
  validateConfigs,
  type ConfigKeyDescription,
  type ConfigSchema,
} from './config/config-schema';
export {
  EnvironmentVariables,
  APP_ROLES,
  LOG_LEVELS,
  type AppRoleName,
  type LogLevelName,
} from './config/environment';
