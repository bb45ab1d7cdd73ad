/**
 * Re-records the committed cassettes of the integration examples against the scripted provider
 * each spec starts (no key, no network; `mcp` starts its MCP server too and records its handshake in
 * `mcp/__cassettes__/mcp.spec.ts/outside-tests.mcp.json`):
 *
 *   node examples/integrations/record-cassettes.ts            every cassette
 *   node examples/integrations/record-cassettes.ts mastra     one framework's (a Vitest file filter)
 *   node examples/integrations/record-cassettes.ts mcp        the MCP example's
 *
 * It is `npx crashlab vitest --record run` run in this folder: this project's Vitest with
 * CRASHLAB_RECORD=all. Review the diff before committing: a re-record changes the run ids, times,
 * the provider's port in each request URL and the random refund ids, and nothing else.
 */
import { runVitest } from '../../src/cli/commands/vitest.ts' // in your project: npx crashlab vitest --record run

process.exitCode = await runVitest(['run', ...process.argv.slice(2)], {
  mode: 'all',
  cwd: import.meta.dirname,
})
