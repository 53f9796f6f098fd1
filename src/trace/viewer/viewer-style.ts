/** The viewer page's stylesheet (inlined: the page is one self-contained file). */
export const VIEWER_STYLE = `
:root { --fg: #1d2129; --muted: #667085; --line: #e4e7ec; --ok: #067647; --ok-bg: #ecfdf3; --bad: #b42318; --bad-bg: #fef3f2; --warn: #b54708; --warn-bg: #fffaeb; --eph: #6941c6; --eph-bg: #f4f3ff; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: #f9fafb; }
header { position: sticky; top: 0; z-index: 1; background: #fff; border-bottom: 1px solid var(--line); padding: 12px 20px; display: flex; flex-wrap: wrap; gap: 12px 24px; align-items: center; }
header h1 { font-size: 16px; margin: 0; }
header .summary { color: var(--muted); }
header label { color: var(--muted); font-size: 13px; }
header select { margin-left: 4px; font: inherit; padding: 2px 4px; }
main { padding: 16px 20px; max-width: 1200px; }
details { border: 1px solid var(--line); border-radius: 6px; background: #fff; margin: 8px 0; }
details > summary { cursor: pointer; padding: 8px 12px; list-style-position: inside; }
details[open] > summary { border-bottom: 1px solid var(--line); }
.run > .body, .attempt > .body, .tool > .body { padding: 8px 12px 12px; }
.badge { display: inline-block; border-radius: 10px; padding: 0 8px; font-size: 12px; font-weight: 600; margin-right: 6px; }
.badge.ok { color: var(--ok); background: var(--ok-bg); }
.badge.failed { color: var(--bad); background: var(--bad-bg); }
.badge.unfinished, .badge.retry { color: var(--warn); background: var(--warn-bg); }
.badge.ephemeral { color: var(--eph); background: var(--eph-bg); }
.attempt.failed > summary { border-left: 3px solid var(--bad); }
.attempt.ok > summary { border-left: 3px solid var(--ok); }
.muted { color: var(--muted); }
code, pre { font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
pre { background: #f2f4f7; border-radius: 4px; padding: 8px; margin: 4px 0 10px; white-space: pre-wrap; word-break: break-word; max-height: 320px; overflow: auto; }
h4 { margin: 10px 0 2px; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
ul.issues { margin: 4px 0 10px; padding-left: 20px; }
ul.issues code { color: var(--bad); }
.tail { border: 1px dashed var(--eph); border-radius: 6px; background: var(--eph-bg); padding: 6px 10px; margin: 6px 0; }
.tail .role { font-weight: 600; color: var(--eph); }
.note { color: var(--muted); padding: 4px 12px; font-style: italic; }
.empty { color: var(--muted); padding: 24px; text-align: center; }
.note.invalid, .note.record_error, ul.invalid { color: var(--bad); }
.skipped { margin: 8px 20px; max-width: 1200px; }
.skipped ul { margin: 4px 0 10px; padding: 0 12px 0 32px; font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
header button { font: inherit; font-size: 13px; padding: 2px 8px; cursor: pointer; }
`
