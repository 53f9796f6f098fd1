import { createServer, Socket } from 'node:net'

/**
 * A TCP relay between a replica and its master, that the test can freeze: what the master sends
 * afterwards (its replication stream) is dropped, never reaching the replica, while the master goes
 * on acknowledging writes. Then a failover loses those writes, as a lagging replica would.
 */
export interface ReplicationLink {
  /** The port the replica connects to (`--replicaof 127.0.0.1 <port>`). */
  readonly port: number
  /** From now on, drops everything the master sends. */
  freeze(): void
  /** Closes the relay and every connection through it. */
  close(): Promise<void>
}

/** Starts a relay on a free loopback port to the server on `target`. */
export async function startReplicationLink(target: number): Promise<ReplicationLink> {
  let frozen = false
  const sockets = new Set<Socket>()
  const server = createServer((replica) => {
    const master = new Socket()
    for (const s of [replica, master]) {
      sockets.add(s)
      s.on('error', () => {})
      s.once('close', () => {
        sockets.delete(s)
        replica.destroy()
        master.destroy()
      })
    }
    master.on('data', (chunk: Buffer) => {
      if (!frozen) replica.write(chunk)
    })
    replica.on('data', (chunk: Buffer) => master.write(chunk))
    master.connect(target, '127.0.0.1')
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return {
    port: address.port,
    freeze() {
      frozen = true
    },
    async close() {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
