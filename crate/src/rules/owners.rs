//! The owner rules' tables (seed `001_*`, "An owner beats a bystander"; see
//! [`crate::strength::owners`] for what they mean and how the walk uses them).

/// The classes whose instances have owners (and their subclasses).
pub const OWNED_CLASSES: [&str; 2] = ["android.view.View", "android.app.Activity"];

/// The fields that own what they reference (class and subclasses, the field of that name).
pub const OWNER_FIELDS: [(&str, &str); 3] = [
    ("android.app.Activity", "mDecor"),
    ("android.app.Dialog", "mDecor"),
    ("android.app.ActivityThread$ActivityClientRecord", "activity"),
];
