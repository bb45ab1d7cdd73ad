#!/usr/bin/env node
// The `crashlab` command. The version check runs before anything else is loaded, so that an old Node
// gets a clear sentence instead of a syntax or import error from deep inside a dependency.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 13)) {
  console.error(
    `[crashlab] needs Node.js 22.13 or newer; this is ${process.version}. ` +
      'Install Node 22 (or add the devDependency `node@22` and run crashlab through npm scripts or npx).',
  )
  process.exit(1)
}
const { main } = await import('./main.ts')
const { runMain } = await import('./internal/command.ts')
await runMain(main)
