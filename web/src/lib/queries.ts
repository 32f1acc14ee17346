// The session's queries, typed with the core's generated types (web/src/generated/query.ts:
// `Query` is every question, `Answer` every answer under the same name), so a query the
// core does not know, a missing argument or a misread answer is a type error here. The
// worker does the work. Answers that cannot change (an object's fields, its path) are cached.
import type { ObjectRef, Reading as Tree } from '../generated/report';
import type { Answer, ArrayGroupMembers, Children, ClassGroup, DominatorGroups, ClassesUp, GroupMembers, HistogramGroup, HistogramGrouping, Instances, LeakTracePath, ObjectDetails, PathStep, Paths, Query, Referrers, Stretch } from '../generated/query';
import type { AnalysisClient } from '../import/worker-client';

/** The name of a query ("children", "object", …). */
export type QueryName = Query['query'];
/** The answer type of query `K`. */
export type AnswerTo<K extends QueryName> = Extract<Answer, { query: K }>['answer'];

export class Queries {
  private cache = new Map<string, Promise<unknown>>();

  /** `tree`: the dominator tree the worker's session reads (the holder queries name it, so
   * an answer from the other tree cannot arrive by mistake). */
  constructor(private readonly client: AnalysisClient, readonly tree: Tree = 'mat') {}

  /** Asks `query`; the answer is typed by the query's name. */
  ask<Q extends Query>(query: Q, cache = false): Promise<AnswerTo<Q['query']>> {
    const key = JSON.stringify(query);
    const hit = cache ? this.cache.get(key) : undefined;
    if (hit) return hit as Promise<AnswerTo<Q['query']>>;
    const answer = this.client.request({ kind: 'query', query }).then((json) => answerOf(query.query, json)) as Promise<AnswerTo<Q['query']>>;
    if (cache) {
      this.cache.set(key, answer);
      answer.catch(() => this.cache.delete(key));
      if (this.cache.size > 200) this.cache.delete(this.cache.keys().next().value as string);
    }
    return answer;
  }

  /** A page of the children of `parent` (null: the top-level dominators), largest first. */
  children(parent: string | null, offset: number, limit: number): Promise<Children> {
    return this.ask({ query: 'children', parent, offset, limit }, true);
  }

  /** The children of `parent` grouped by class, largest group first. */
  childrenByClass(parent: string | null, limit: number): Promise<ClassGroup[]> {
    return this.ask({ query: 'children_by_class', parent, limit }, true);
  }

  /** The dominator tree grouped by class: the groups below `path` (class object
   * addresses of the groups opened, top level first), the `limit` largest. */
  dominatorGroups(path: string[], limit: number): Promise<DominatorGroups> {
    return this.ask({ query: 'dominator_groups', path, limit }, true);
  }

  /** The objects referencing `address` (the `limit` largest), read from the referrer
   * index (built by the worker on the first question that needs it). */
  referrers(address: string, limit: number): Promise<Referrers> {
    return this.ask({ query: 'referrers', object: address, limit, tree: this.tree }, true);
  }

  /** The leak trace of `address`, its dominators marked, and its unmarked stretches (no
   * search yet: each stretch's ways are asked with `heldHowElse`). */
  paths(address: string): Promise<Paths> {
    return this.ask({ query: 'paths', object: address, tree: this.tree, max: 0 }, true);
  }

  /** The path LeakCanary's leak trace takes to `address` (strong references only, library
   * leaks and JNI globals last), beside the shortest one, and why they differ. */
  leakTracePath(address: string): Promise<LeakTracePath> {
    return this.ask({ query: 'leak_trace_path', object: address, tree: this.tree }, true);
  }

  /** At most `max` independent paths from `from` (null: the GC roots) to `to`. */
  heldHowElse(from: string | null, to: string, max: number): Promise<Stretch> {
    return this.ask({ query: 'held_how_else', from, to, tree: this.tree, max }, true);
  }

  /** Classes up: the class rows (`path` empty) or the rows directly above the row named
   * by `path` (class object addresses, bottom first), the `limit` heaviest. */
  classesUp(path: string[], limit: number): Promise<ClassesUp> {
    return this.ask({ query: 'classes_up', path, tree: this.tree, depth: 0, limit }, true);
  }

  /** The histogram's classes grouped by package or class loader, largest retained first. */
  histogramGroups(by: HistogramGrouping): Promise<HistogramGroup[]> {
    return this.ask({ query: 'histogram_groups', by }, true);
  }

  /** A page of the instances of the class whose class object is at `classAddress`. */
  instances(classAddress: string, offset: number, limit: number): Promise<Instances> {
    return this.ask({ query: 'instances', class: classAddress, offset, limit }, true);
  }

  objectDetails(address: string): Promise<ObjectDetails> {
    return this.ask({ query: 'object', object: address }, true);
  }

  pathToRoot(address: string): Promise<PathStep[]> {
    return this.ask({ query: 'path_to_root', object: address }, true);
  }

  /** The strings of the duplicate-string group of the String at `address`, by address from
   * `offset` (at most `limit`), each with at most `holders` of the objects referencing it. */
  duplicateStringMembers(address: string, offset: number, limit: number, holders: number): Promise<GroupMembers> {
    return this.ask({ query: 'duplicate_string_members', object: address, offset, limit, holders }, true);
  }

  /** The arrays of the duplicate-array group of the primitive array at `address`, as
   * {@link duplicateStringMembers} lists a string group's. */
  duplicateArrayMembers(address: string, offset: number, limit: number, holders: number): Promise<ArrayGroupMembers> {
    return this.ask({ query: 'duplicate_array_members', object: address, offset, limit, holders }, true);
  }

  /** The kept object at `address`, or null. */
  find(address: string): Promise<ObjectRef | null> {
    return this.ask({ query: 'find', object: address });
  }

  /** Applies a ProGuard/R8 mapping (its text) to the dump: the rebuilt report's JSON. */
  applyMapping(text: string): Promise<string> {
    return this.client.request({ kind: 'mapping', text }).then((json) => json ?? '');
  }

  /** Makes `tree` the dominator tree of the worker's session: the report's JSON in it. */
  setTree(tree: Tree): Promise<string> {
    return this.client.request({ kind: 'tree', tree }).then((json) => json ?? '');
  }

  markdown(): Promise<string> {
    return this.client.request({ kind: 'render', format: 'markdown' }).then((text) => text ?? '');
  }

  /** The report as Markdown with bars, sparklines and trees (`analyze -f md-graphs`). */
  markdownGraphs(): Promise<string> {
    return this.client.request({ kind: 'render', format: 'markdown_graphs' }).then((text) => text ?? '');
  }

  /** The report as one HTML file with no script and nothing to fetch. */
  html(): Promise<string> {
    return this.client.request({ kind: 'render', format: 'html' }).then((text) => text ?? '');
  }
}

/** The answer in the worker's JSON, checked to answer the query asked. */
function answerOf(name: QueryName, json: string | null): unknown {
  const parsed = JSON.parse(json ?? 'null') as Answer | null;
  if (parsed?.query !== name) throw new Error(`the worker answered ${String(parsed?.query)} to ${name}`);
  return parsed.answer;
}
