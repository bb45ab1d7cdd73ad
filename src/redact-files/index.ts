export {
  type RedactFileResult,
  type RedactFilesOptions,
  type RedactFilesReport,
  redactFiles,
} from './redact-files.ts'
