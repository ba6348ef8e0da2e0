"""A Streamlit session driven over the app's own websocket protocol, as a browser tab drives it."""

import http.cookies
import io
import urllib.request
import uuid
from pathlib import Path

import pyarrow.ipc
from google.protobuf.message import Message
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Common_pb2 import FileURLs, UploadedFileInfo
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.sync.client import connect

XSRF_COOKIE = "_streamlit_xsrf"
RUN_ENDED = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR}


def element_texts(element: Message) -> list[str]:
    """Every string an element shows: its labels, bodies and options, and its table's cells."""
    texts: list[str] = []
    for field, value in element.ListFields():
        if field.name == "arrow_data" and value.data:
            table = pyarrow.ipc.open_stream(io.BytesIO(value.data)).read_all()
            texts.extend(str(cell) for column in table.columns for cell in column.to_pylist())
        elif field.type == field.TYPE_STRING:
            texts.extend([value] if isinstance(value, str) else list(value))
        elif field.type == field.TYPE_MESSAGE:
            for item in (value if field.is_repeated else [value]):
                texts.extend(element_texts(item))
    return texts


class SocketSession:
    """One browser tab's session: it reruns pages, sets widgets and uploads files.

    ``seen`` keeps every string the server ever sent to this session, so a test can check
    that nothing from another session reached it.
    """

    def __init__(self, base: str, timeout: float = 240.0) -> None:
        self.base = base
        self.timeout = timeout
        with urllib.request.urlopen(f"{base}/_stcore/health", timeout=30) as response:
            cookies = http.cookies.SimpleCookie()
            for header in response.headers.get_all("Set-Cookie") or []:
                cookies.load(header)
        self.xsrf = cookies[XSRF_COOKIE].value if XSRF_COOKIE in cookies else ""
        self.socket = connect(
            base.replace("http://", "ws://") + "/_stcore/stream", subprotocols=["streamlit"],
            additional_headers={"Origin": base, "Cookie": f"{XSRF_COOKIE}={self.xsrf}"},
            max_size=None, open_timeout=30).__enter__()
        self.session_id = ""
        self.page_hashes: dict[str, str] = {}
        self.page_hash = ""
        self.elements: dict[tuple[int, ...], Message] = {}
        self.kept: dict[str, WidgetState] = {}
        self.cache: dict[str, ForwardMsg] = {}
        self.seen: list[str] = []
        self.upload_urls: list[FileURLs] = []

    def __enter__(self) -> "SocketSession":
        return self

    def __exit__(self, *exc_info) -> None:
        self.socket.__exit__(*exc_info)

    # -- the page as the user sees it --------------------------------------------------
    def text(self) -> str:
        """All the text of the page from its last run, in the order it was drawn."""
        return "\n".join(t for path in sorted(self.elements)
                         for t in element_texts(self.elements[path]))

    def widget(self, kind: str, label: str) -> Message:
        found = [getattr(e, kind) for e in self.elements.values()
                 if e.WhichOneof("type") == kind and getattr(e, kind).label == label]
        if len(found) != 1:
            raise AssertionError(f"{len(found)} {kind} widgets labelled {label!r}:\n{self.text()}")
        return found[0]

    def kinds(self) -> list[str]:
        return [e.WhichOneof("type") for e in self.elements.values()]

    # -- what a user does --------------------------------------------------------------
    def open(self, page: str) -> None:
        """Open a page by its address (``data``, ``dic``, …), as a sidebar link does."""
        self.kept.clear()
        self._rerun(page_name=page, page_hash=self.page_hashes.get(page, ""))

    def choose(self, label: str, option: str) -> None:
        radio = self.widget("radio", label)
        if option not in radio.options:
            raise AssertionError(f"{option!r} is not among {list(radio.options)}")
        self.kept[radio.id] = WidgetState(id=radio.id, string_value=option)
        self._rerun()

    def click(self, label: str) -> None:
        button = self.widget("button", label)
        self._rerun(trigger=WidgetState(id=button.id, trigger_value=True))

    def upload(self, label: str, path: Path) -> None:
        uploader = self.widget("file_uploader", label)
        request = BackMsg()
        request.file_urls_request.request_id = uuid.uuid4().hex
        request.file_urls_request.file_names.append(path.name)
        request.file_urls_request.session_id = self.session_id
        self.upload_urls = []
        self.socket.send(request.SerializeToString())
        while not self.upload_urls:
            self._receive()
        urls = self.upload_urls[0]
        content = path.read_bytes()
        boundary = uuid.uuid4().hex
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
                f"filename=\"{path.name}\"\r\nContent-Type: text/csv\r\n\r\n").encode() \
            + content + f"\r\n--{boundary}--\r\n".encode()
        put = urllib.request.Request(
            self.base + urls.upload_url, data=body, method="PUT",
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}",
                     "X-Xsrftoken": self.xsrf, "Cookie": f"{XSRF_COOKIE}={self.xsrf}"})
        with urllib.request.urlopen(put, timeout=60) as response:
            assert response.status in (200, 204), response.status
        state = WidgetState(id=uploader.id)
        state.file_uploader_state_value.uploaded_file_info.append(UploadedFileInfo(
            name=path.name, size=len(content), file_id=urls.file_id, file_urls=urls))
        self.kept[uploader.id] = state
        self._rerun()

    # -- the protocol ------------------------------------------------------------------
    def _rerun(self, page_name: str = "", page_hash: str = "",
               trigger: WidgetState | None = None) -> None:
        message = BackMsg()
        state = message.rerun_script
        state.page_script_hash = page_hash or self.page_hash
        state.page_name = page_name
        state.widget_states.widgets.extend(self.kept.values())
        if trigger is not None:
            state.widget_states.widgets.append(trigger)
        self.elements = {}
        self.socket.send(message.SerializeToString())
        while self._receive() not in RUN_ENDED:
            pass

    def _receive(self) -> int | None:
        """Read one message; return the run's end status when it is a script's end."""
        message = ForwardMsg()
        message.ParseFromString(self.socket.recv(timeout=self.timeout))
        if message.WhichOneof("type") == "ref_hash":
            message = self.cache[message.ref_hash]
        elif message.metadata.cacheable:
            self.cache[message.hash] = message
        kind = message.WhichOneof("type")
        if kind == "new_session":
            self.session_id = message.new_session.initialize.session_id
            self._learn_pages(message.new_session.app_pages)
            self.page_hash = message.new_session.page_script_hash
        elif kind == "navigation":
            self._learn_pages(message.navigation.app_pages)
            self.page_hash = message.navigation.page_script_hash
        elif kind == "delta" and message.delta.WhichOneof("type") == "new_element":
            element = message.delta.new_element
            self.elements[tuple(message.metadata.delta_path)] = element
            self.seen.extend(element_texts(element))
        elif kind == "file_urls_response":
            self.upload_urls = list(message.file_urls_response.file_urls)
        elif kind == "page_not_found":
            raise AssertionError(f"no such page: {message.page_not_found.page_name}")
        elif kind == "script_finished":
            if message.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                self.elements = {}
            return message.script_finished
        return None

    def _learn_pages(self, pages) -> None:
        for page in pages:
            self.page_hashes[page.url_pathname] = page.page_script_hash
