// Packs crashlab, installs the tarball into a fresh temp project and uses it from there, on this
// Node (22): `crashlab --version` must print the package version and every `exports` entry must import.
// This catches a file missing from the published package, which the in-repo tests cannot see.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const root = resolve(import.meta.dirname, '..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const dir = mkdtempSync(join(tmpdir(), 'crashlab-smoke-'))
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })

try {
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', dir], root))
  const tarball = join(dir, packed[0].filename)
  console.log(`packed ${packed[0].filename}: ${packed[0].entryCount} files, ${packed[0].size} bytes`)

  const app = join(dir, 'app')
  run('mkdir', ['-p', app], dir)
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'smoke-app', private: true, type: 'module' }),
  )
  // crashlab/vitest needs its peer, Vitest (and the Vite this project pins: see package.json).
  const dev = pkg.devDependencies
  run('npm', ['install', '--no-audit', '--no-fund', tarball, `vitest@${dev.vitest}`, `vite@${dev.vite}`], app)

  const version = run('npx', ['--no-install', 'crashlab', '--version'], app).trim()
  if (version !== pkg.version)
    throw new Error(`crashlab --version printed "${version}", expected "${pkg.version}"`)
  console.log(`npx crashlab --version → ${version}`)

  // The installed CLI on a real file: the committed example cassette validates and scans clean.
  const cassette = join(root, '__cassettes__', 'hand-built-run.cassette.json')
  console.log(run('npx', ['--no-install', 'crashlab', 'validate', cassette], app).trim())
  console.log(run('npx', ['--no-install', 'crashlab', 'scan', join(root, '__cassettes__')], app).trim())

  for (const entry of Object.keys(pkg.exports)) {
    const spec = entry === '.' ? pkg.name : `${pkg.name}/${entry.slice(2)}`
    const code = spec.endsWith('.json')
      ? `const m = await import(${JSON.stringify(spec)}, { with: { type: 'json' } }); if (m.default.name !== ${JSON.stringify(pkg.name)}) process.exit(2)`
      : `const m = await import(${JSON.stringify(spec)}); if (Object.keys(m).length === 0) { console.error('no exports'); process.exit(2) }`
    run(process.execPath, ['--input-type=module', '-e', code], app)
    console.log(`import ${spec} ✓`)
  }
  // The scripted provider from the installed package answers a real HTTP call.
  const scripted = `
    const { startScriptedProvider } = await import('crashlab/testing')
    const provider = await startScriptedProvider({ turns: [{ text: 'hello from the package' }] })
    try {
      const res = await fetch(provider.url + '/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      })
      const body = await res.json()
      if (body.choices[0].message.content !== 'hello from the package') throw new Error(JSON.stringify(body))
    } finally {
      await provider.close()
    }`
  run(process.execPath, ['--input-type=module', '-e', scripted], app)
  console.log('crashlab/testing scripted provider answered ✓')
  console.log('smoke test passed')
} finally {
  rmSync(dir, { recursive: true, force: true })
}
