"""One module per command of the ``evidence-kit`` CLI; each is a thin layer over the library."""
