// A heap described by class and field names, written as an Android ART dump (`JAVA PROFILE
// 1.0.3`, 4-byte ids) with the HPROF writer of hprof.mjs: the browser tests build the
// Android objects of a case by name and know by construction what every object holds.
// The same shape as the Rust tests' scene (crate/tests/support/scene.rs), so a case built
// there (crate/tests/leaks.rs) can be built here the same way.
import { HprofWriter, TYPE } from './hprof.mjs';

export { TYPE };

export class Scene {
  constructor() {
    this.next = 0x1000;
    this.classes = [];
    this.objects = [];
    this.jniGlobals = [];
    this.class('java.lang.Object', null, []);
    this.class('java.lang.Class', 'java.lang.Object', []);
    this.class('java.lang.String', 'java.lang.Object', [['value', TYPE.OBJECT], ['count', TYPE.INT], ['hashCode', TYPE.INT]]);
    this.class('char[]', 'java.lang.Object', []);
    this.class('java.lang.Object[]', 'java.lang.Object', []);
    this.class('java.lang.Thread', 'java.lang.Object', [['name', TYPE.OBJECT]]);
    this.class('java.lang.ref.Reference', 'java.lang.Object', [['referent', TYPE.OBJECT], ['queue', TYPE.OBJECT]]);
    this.class('java.lang.ref.WeakReference', 'java.lang.ref.Reference', []);
  }

  id() {
    this.next += 0x10;
    return this.next;
  }

  /** Declares a class (its super class first) with its own instance fields [[name, type]]. */
  class(name, superName, fields) {
    const superId = superName ? this.classId(superName) : 0;
    const id = this.id();
    this.classes.push({ id, name, superId, fields, statics: [] });
    return id;
  }

  classId(name) {
    const c = this.classes.find((k) => k.name === name);
    if (!c) throw new Error(`class ${name} not declared`);
    return c.id;
  }

  /** A static reference field of a declared class. */
  staticRef(className, name, value) {
    this.classes.find((k) => k.name === className).statics.push({ name, type: TYPE.OBJECT, value });
  }

  staticInt(className, name, value) {
    this.classes.find((k) => k.name === className).statics.push({ name, type: TYPE.INT, value });
  }

  /** An instance: values by field name ({name: id or number}); missing fields are 0/null. */
  instance(className, values = {}) {
    const id = this.id();
    this.objects.push({ kind: 'instance', id, classId: this.classId(className), values });
    return id;
  }

  array(className, elements) {
    const id = this.id();
    this.objects.push({ kind: 'array', id, classId: this.classId(className), elements });
    return id;
  }

  /** A java.lang.String (Android style: a char[] value and a count). */
  string(text) {
    const units = [...text].flatMap((c) => {
      const cp = c.codePointAt(0);
      if (cp < 0x10000) return [cp];
      const v = cp - 0x10000;
      return [0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff)];
    });
    const chars = this.id();
    this.objects.push({ kind: 'chars', id: chars, units });
    return this.instance('java.lang.String', { value: chars, count: units.length });
  }

  rootJniGlobal(id) {
    this.jniGlobals.push(id);
  }

  /** The class chain of class id `classId`, lowest first. */
  chain(classId) {
    const out = [];
    for (let id = classId; id; ) {
      const c = this.classes.find((k) => k.id === id);
      out.push(c);
      id = c.superId;
    }
    return out;
  }

  /** The dump's bytes: every class a System Class root, as in ART dumps. */
  bytes() {
    const w = new HprofWriter({ idSize: 4, version: 'JAVA PROFILE 1.0.3', timestampMs: Date.UTC(2026, 0, 1) });
    for (const c of this.classes) {
      w.defineClass(c.id, c.name, { superId: c.superId, statics: c.statics, fields: c.fields.map(([name, type]) => ({ name, type })) });
    }
    for (const id of this.jniGlobals) w.rootJniGlobal(id);
    for (const o of this.objects) {
      if (o.kind === 'chars') w.charArray(o.id, o.units);
      else if (o.kind === 'array') w.objectArray(o.id, o.classId, o.elements);
      else {
        const values = [];
        const used = new Set();
        for (const k of this.chain(o.classId)) {
          for (const [name, type] of k.fields) {
            const v = o.values[name] ?? 0;
            if (name in o.values) used.add(name);
            values.push({ type, value: v });
          }
        }
        const unknown = Object.keys(o.values).filter((n) => !used.has(n));
        if (unknown.length) throw new Error(`fields ${unknown.join(', ')} not declared for 0x${o.id.toString(16)}`);
        w.instance(o.id, o.classId, values);
      }
    }
    return w.finish();
  }
}

/**
 * LeakCanary's own test case `leak_service_binder_ignored`, built as crate/tests/leaks.rs
 * builds it: LeakCanary 1.x watches `com.example.LeakyService`, whose binder
 * `LeakyService$MyBinder.service` holds it; only a JNI global root (the system's reference
 * to a bound service's stub) holds the binder: a library leak ("native global variable
 * referencing android.os.Binder"). With `appList`, the app also keeps its binders in the
 * static `LeakyService.leakAllTheBinders` (then it is the application's leak).
 */
export function serviceBinderDump({ appList = false } = {}) {
  const s = new Scene();
  s.class('android.os.Build', 'java.lang.Object', []);
  s.staticRef('android.os.Build', 'MANUFACTURER', s.string('unknown'));
  s.class('android.os.Build$VERSION', 'java.lang.Object', []);
  s.staticInt('android.os.Build$VERSION', 'SDK_INT', 19);
  s.class('android.content.Context', 'java.lang.Object', []);
  s.class('android.content.ContextWrapper', 'android.content.Context', [['mBase', TYPE.OBJECT]]);
  s.class('android.app.Service', 'android.content.ContextWrapper', []);
  s.class('android.util.ArrayMap', 'java.lang.Object', [['mArray', TYPE.OBJECT]]);
  s.class('android.app.ActivityThread', 'java.lang.Object', [['mServices', TYPE.OBJECT]]);
  s.class('java.util.ArrayList', 'java.lang.Object', [['elementData', TYPE.OBJECT], ['size', TYPE.INT]]);
  // The running ActivityThread, with no service in mServices: the service was destroyed.
  const slots = s.array('java.lang.Object[]', []);
  const map = s.instance('android.util.ArrayMap', { mArray: slots });
  const thread = s.instance('android.app.ActivityThread', { mServices: map });
  s.staticRef('android.app.ActivityThread', 'sCurrentActivityThread', thread);
  s.class('android.os.Binder', 'java.lang.Object', []);
  s.class('com.example.LeakyService', 'android.app.Service', []);
  s.class('com.example.LeakyService$MyBinder', 'android.os.Binder', [['service', TYPE.OBJECT]]);
  s.class('com.squareup.leakcanary.KeyedWeakReference', 'java.lang.ref.WeakReference', [['key', TYPE.OBJECT], ['name', TYPE.OBJECT]]);
  const service = s.instance('com.example.LeakyService');
  const binder = s.instance('com.example.LeakyService$MyBinder', { service });
  s.rootJniGlobal(binder);
  if (appList) {
    const array = s.array('java.lang.Object[]', [binder]);
    const list = s.instance('java.util.ArrayList', { elementData: array, size: 1 });
    s.staticRef('com.example.LeakyService', 'leakAllTheBinders', list);
  }
  const key = s.string(SERVICE_KEY);
  const name = s.string('');
  const kwr = s.instance('com.squareup.leakcanary.KeyedWeakReference', { key, name, referent: service });
  s.class('com.squareup.leakcanary.RefWatcher', 'java.lang.Object', []);
  s.staticRef('com.squareup.leakcanary.RefWatcher', 'retainedKeys', kwr);
  return { bytes: s.bytes(), service: `0x${service.toString(16)}`, binder: `0x${binder.toString(16)}` };
}

export const SERVICE_KEY = 'b3abfae6-2c53-42e1-b8c1-96b0558dbeae';
