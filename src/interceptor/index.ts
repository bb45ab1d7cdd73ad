/**
 * The MSW interceptor: the zero-change default path. crashlab's handlers route every request to a model
 * host through the current Session (record or replay), in crashlab's own MSW server or in the user's.
 */
export { crashlabHandlers, isCrashlabHandler } from './crashlab-handlers.ts'
export { DEFAULT_HOSTS } from './internal/host-matcher.ts'
export { startInterceptor } from './start-interceptor.ts'
export type { Interceptor, InterceptorOptions } from './types.ts'
