"""Notebooks' domain: a notebook file read and checked (format), view's text of it
(view), and notebook_edit on files (files). Uses the file tools' shared modules; of the
rest of files/, only view (view_path) uses it."""
