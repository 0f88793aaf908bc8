"""A browser table for canasta-env: play against the bots and watch replays in a web page.

``canasta serve`` starts it (:mod:`canasta_web.serve`); the app is
:func:`canasta_web.app.create_app`. Needs the ``web`` extra (FastAPI, uvicorn).
"""
