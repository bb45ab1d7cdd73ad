import { CrashlabError } from '../../errors.ts'

interface ViteRunner {
  runnerImport<T>(
    moduleId: string,
    inlineConfig?: { root?: string; logLevel?: 'error' | 'warn' | 'info' | 'silent' },
  ): Promise<{ module: T }>
}

/**
 * Imports a module through Vite's module runner (`runnerImport`), so a TypeScript entry point and its
 * imports load as Vitest would load them. Vite is a peer of the projects that replay (Vitest brings
 * it); it is imported only here, when a module entry point is replayed.
 */
export async function importWithVite(id: string, root: string): Promise<Record<string, unknown>> {
  let vite: ViteRunner
  try {
    vite = (await import('vite')) as unknown as ViteRunner
  } catch (error) {
    throw new CrashlabError(
      'E_REPLAY_ENTRY',
      'replaying a module entry point loads it through Vite (TypeScript included), and Vite is not installed ' +
        'here: `npm i -D vite` (Vitest brings it along).',
      { cause: error },
    )
  }
  if (typeof vite.runnerImport !== 'function') {
    throw new CrashlabError(
      'E_REPLAY_ENTRY',
      'the installed Vite has no `runnerImport` (Vite 6.1 or newer has it): `npm i -D vite@latest`.',
    )
  }
  const { module } = await vite.runnerImport<Record<string, unknown>>(id, { root, logLevel: 'error' })
  return module
}
