// A redaction hook, named by module in the plugin's options: project.provide() cannot carry functions.
export default {
  'tenant-names': (value: string) => value.replaceAll('tenant-bluebird', '[REDACTED:tenant]'),
}
