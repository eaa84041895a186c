/**
 * `work` for each item, at most `lanes` at a time: each lane takes the next item as soon as it is free, so none
 * waits for a slower one. `lane` (0 … lanes − 1) says which lane runs the item, for work bound to one resource per
 * lane (a worker thread). The answers come back in the items' order; the first failure is thrown (as by
 * Promise.all), and no lane starts another item after it.
 */
export async function mapInLanes<T, R>(
  items: readonly T[],
  lanes: number,
  work: (item: T, lane: number) => Promise<R>,
): Promise<R[]> {
  const answers: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const lane = async (id: number) => {
    while (next < items.length && !failed) {
      const i = next++;
      try {
        answers[i] = await work(items[i]!, id);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, (_, id) => lane(id)));
  return answers;
}
