// One writer per key: tasks of the same key run one after the other, in arrival order; different
// keys run concurrently. A failed task does not stop the ones queued behind it.
export function createKeyedQueue () {
  const tails = new Map<string, Promise<unknown>>()
  return function run<T> (key: string, fn: () => Promise<T>): Promise<T> {
    const result = (tails.get(key) ?? Promise.resolve()).then(fn, fn)
    const tail = result.catch(() => undefined)
    tails.set(key, tail)
    tail.then(() => { if (tails.get(key) === tail) tails.delete(key) })
    return result
  }
}
