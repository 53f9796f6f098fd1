import type { SkippedLine } from './parse-trace.ts'
import type { ViewRun } from './trace-model.ts'
import { VIEWER_SCRIPT } from './viewer-script.ts'
import { VIEWER_STYLE } from './viewer-style.ts'

/**
 * The viewer page for some runs: one self-contained HTML document (style, script and data inline,
 * nothing fetched), so it can be written to a file and opened anywhere.
 */
export function renderHtml(runs: readonly ViewRun[], title: string, skipped: readonly SkippedLine[] = []): string {
  const failed = runs.filter((r) => r.outcome === 'fail-fast').length
  const cost = runs.reduce((sum, r) => sum + r.costUsd, 0)
  const unpriced = runs.some((r) => r.unpricedAttempts > 0)
  const shownCost = unpriced ? (cost === 0 ? 'unpriced' : `$${cost.toFixed(6)} + unpriced`) : `$${cost.toFixed(6)}`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · reliability-gate trace</title>
<style>${VIEWER_STYLE}</style>
</head>
<body>
<header>
  <h1>reliability-gate trace <span class="muted">${escapeHtml(title)}</span></h1>
  <span class="summary" data-testid="summary">${runs.length} runs · ${failed} failed · ${shownCost} · <span id="shown"></span></span>
  <label>outcome <select id="f-outcome" data-testid="filter-outcome"><option value="">all</option><option value="ok">ok</option><option value="fail-fast">fail-fast</option><option value="unfinished">unfinished</option></select></label>
  <label>model <select id="f-model" data-testid="filter-model"><option value="">all</option></select></label>
  <label>kind <select id="f-kind" data-testid="filter-kind"><option value="">all</option></select></label>
  <span><button type="button" id="expand-all" data-testid="expand-all">expand all</button> <button type="button" id="collapse-all" data-testid="collapse-all">collapse all</button></span>
</header>
<div id="skipped"></div>
<main id="runs"></main>
<script type="application/json" id="trace-data">${jsonForScript(runs)}</script>
<script type="application/json" id="trace-skipped">${jsonForScript(skipped)}</script>
<script>${VIEWER_SCRIPT}</script>
</body>
</html>
`
}

/** JSON that cannot close the script element it sits in, whatever the model wrote. */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}
