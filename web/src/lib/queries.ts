// The session's queries, typed with the core's generated types (web/src/generated/). Each
// answer is the JSON of a Rust type of crate/src/session.rs, parsed here; the worker does
// the work. Answers that cannot change (an object's fields, its path) are cached.
import type { ObjectRef } from '../generated/report';
import type { Children, ClassGroup, HistogramGroup, HistogramGrouping, Instances, ObjectDetails, PathStep, Referrers } from '../generated/session';
import type { AnalysisClient } from '../import/worker-client';
import type { QueryMethod } from '../protocol';

export class Queries {
  private cache = new Map<string, Promise<unknown>>();

  constructor(private readonly client: AnalysisClient) {}

  private ask<T>(method: QueryMethod, args: (string | number | null)[], cache = false): Promise<T> {
    const key = `${method}\u0000${args.join('\u0000')}`;
    const hit = cache ? this.cache.get(key) : undefined;
    if (hit) return hit as Promise<T>;
    const answer = this.client.query(method, ...args).then((json) => (json === null ? null : JSON.parse(json)) as T);
    if (cache) {
      this.cache.set(key, answer);
      answer.catch(() => this.cache.delete(key));
      if (this.cache.size > 200) this.cache.delete(this.cache.keys().next().value as string);
    }
    return answer;
  }

  /** A page of the children of `parent` (null: the top-level dominators), largest first. */
  children(parent: string | null, offset: number, limit: number): Promise<Children> {
    return this.ask('children', [parent, offset, limit], true);
  }

  /** The children of `parent` grouped by class, largest group first. */
  childrenByClass(parent: string | null, limit: number): Promise<ClassGroup[]> {
    return this.ask('children_by_class', [parent, limit], true);
  }

  /** The objects referencing `address` (the `limit` largest), found by scanning every reference. */
  referrers(address: string, limit: number): Promise<Referrers> {
    return this.ask('referrers', [address, limit], true);
  }

  /** The histogram's classes grouped by package or class loader, largest retained first. */
  histogramGroups(by: HistogramGrouping): Promise<HistogramGroup[]> {
    return this.ask('histogram_groups', [by], true);
  }

  /** A page of the instances of the class whose class object is at `classAddress`. */
  instances(classAddress: string, offset: number, limit: number): Promise<Instances> {
    return this.ask('instances', [classAddress, offset, limit], true);
  }

  objectDetails(address: string): Promise<ObjectDetails> {
    return this.ask('object_details', [address], true);
  }

  pathToRoot(address: string): Promise<PathStep[]> {
    return this.ask('path_to_root', [address], true);
  }

  /** The kept object at `address`, or null. */
  find(address: string): Promise<ObjectRef | null> {
    return this.ask('find', [address]);
  }

  markdown(): Promise<string> {
    return this.client.query('markdown').then((text) => text ?? '');
  }

  /** The report as one HTML file with no script and nothing to fetch. */
  html(): Promise<string> {
    return this.client.query('html').then((text) => text ?? '');
  }
}
