import type { Provider } from '../model/provider.ts'
import { ProviderError } from '../model/provider-error.ts'
import type { ModelRequest } from '../model/request.ts'
import type { ModelResponse } from '../model/response.ts'

/**
 * Calls a provider with the caller's signal and an optional timeout. The returned promise settles as
 * soon as the signal aborts or the timeout fires, even if the provider ignores its signal, so a
 * stuck provider can never hang the gate.
 */
export function callProvider(
  provider: Provider,
  request: ModelRequest,
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
): Promise<ModelResponse> {
  // Fast path: nothing to race against, no controller or timer to pay for.
  if (signal === undefined && timeoutMs === undefined) return invoke(provider, request)
  if (signal?.aborted === true) return Promise.reject(abortError(signal))

  const controller = new AbortController()
  return new Promise<ModelResponse>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const cleanup = (): void => {
      if (timer !== undefined) clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    }
    const onAbort = (): void => {
      cleanup()
      const error = abortError(signal)
      controller.abort(error)
      reject(error)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        cleanup()
        const error = new ProviderError(`provider "${provider.name}" did not answer within ${timeoutMs} ms`, { kind: 'timeout', provider: provider.name })
        controller.abort(error)
        reject(error)
      }, timeoutMs)
    }
    invoke(provider, { ...request, signal: controller.signal }).then(
      (response) => {
        cleanup()
        resolve(response)
      },
      (error: unknown) => {
        cleanup()
        reject(error)
      },
    )
  })
}

function invoke(provider: Provider, request: ModelRequest): Promise<ModelResponse> {
  try {
    return Promise.resolve(provider.complete(request))
  } catch (error) {
    // A provider that throws synchronously is treated like one that rejects.
    return Promise.reject(error)
  }
}

function abortError(signal: AbortSignal | undefined): ProviderError {
  return new ProviderError('the run was aborted', { kind: 'aborted', cause: signal?.reason })
}
