// One approver in its own process: node restate-approver.ts <ingress> <workflowKey> <approvalId> <reason>
// Calls the workflow's shared `approve` handler through the Restate ingress and prints its answer.
const [ingress, key, approvalId, reason] = process.argv.slice(2) as [string, string, string, string]
const answer = await fetch(`${ingress}/refunds/${key}/approve`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ approvalId, approved: true, reason }),
})
process.stdout.write(`answer ${answer.status} ${await answer.text()}\n`)

export {}
