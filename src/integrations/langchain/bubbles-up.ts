/** LangGraph's mark on the errors that pause or end a graph on purpose (`interrupt()`, `Command`), as its own `isGraphBubbleUp` reads it. */
export function bubblesUp(error: unknown): boolean {
  try {
    return typeof error === 'object' && error !== null && (error as { is_bubble_up?: unknown }).is_bubble_up === true
  } catch {
    return false
  }
}
