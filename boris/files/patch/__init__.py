"""apply_patch's domain: the patch format read (format), where a run of lines lies in a
file (line_search), an update's hunks applied to a file's bytes (hunks), and the patch
applied to files, all or none (files). Uses the file tools' shared modules (scope,
access, writing); nothing in files/ outside this package uses it."""
