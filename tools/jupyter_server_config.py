"""Jupyter server settings of the course: the answer key is out of the learner's file browser.

``exercises/source/`` holds the instructor versions of the assignments (solutions, grading
declarations), ``tests/`` full-marks notebooks (``tests/grade/grading_corpus``) and correct functions.
The contents manager below neither lists nor serves them (:data:`PRIVATE`): a learner cannot open it
through the file browser or ``/api/contents`` (404, as for a missing file). ``make lab`` loads this
file with ``--config`` (tools/lab.py); on Binder, ``binder/postBuild`` copies it into Jupyter's
config folder (``~/.jupyter``). A learner's kernel or terminal can still read any file of the
checkout: to keep solutions private, publish ``make learner-release DEST=folder`` (README,
"Keeping the answer key private").
"""

import contextvars
import os
import posixpath

from jupyter_server.base.handlers import AuthenticatedFileHandler
from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
from tornado.web import HTTPError
from traitlets import default

_LISTING: contextvars.ContextVar = contextvars.ContextVar("listing", default=None)
#: Served paths (relative to the repository root) that are never listed nor opened: the solutions, and
#: the tests (the grading corpus holds full-marks notebooks, the tests correct functions).
PRIVATE = ("exercises/source", "tests")


def _private(path: str) -> bool:
    clean = posixpath.normpath("/" + str(path).replace("\\", "/")).strip("/").casefold()
    return any(clean == p or clean.startswith(p + "/") for p in PRIVATE)


class CourseFileHandler(AuthenticatedFileHandler):
    """``/files/...`` (downloads, images in Markdown) without the private folders."""

    def validate_absolute_path(self, root, absolute_path):
        if _private(os.path.relpath(absolute_path, root)):
            raise HTTPError(404)
        return super().validate_absolute_path(root, absolute_path)


class CourseContentsManager(AsyncLargeFileManager):
    """The default contents manager, minus the private folders (not listed, 404 when asked for)."""

    @default("files_handler_class")
    def _files_handler_class_default(self):
        return CourseFileHandler

    def _private(self, path: str) -> bool:
        return _private(path)

    def _get_os_path(self, path):
        if self._private(path):
            raise HTTPError(404, f"No such file or directory: {path}")
        return super()._get_os_path(path)

    async def _dir_model(self, path, content=True):
        token = _LISTING.set(path)
        try:
            return await super()._dir_model(path, content=content)
        finally:
            _LISTING.reset(token)

    def should_list(self, name):
        parent = _LISTING.get()
        if parent is not None and self._private(f"{parent}/{name}"):
            return False
        return super().should_list(name)


def configure(c) -> None:
    """Apply the course's settings to a Jupyter config object ``c``."""
    c.ServerApp.contents_manager_class = CourseContentsManager
    c.ContentsManager.hide_globs = [
        "__pycache__",
        "*.pyc",
        "*.pyo",
        ".DS_Store",
        "*~",
        "*.so",
        "*.dylib",
        "*.grader.py",
        "*.grading.py",
    ]


if "get_config" in globals():  # defined by traitlets when Jupyter loads this file; absent on a plain import
    configure(get_config())  # noqa: F821
