# 98_report_browser.sh: `report --format html` opened in a real browser,
# headless chromium (Debian's `chromium`, which `make test` installs as root
# like the other dependencies; without it the checks say SKIP).
#   browser-1  the page loads; every plot image in it loads (complete, a
#              natural width > 0), and there is at least one
#   browser-2  nothing overflows the page at 1280 pixels (the document is
#              no wider than the window)
#   browser-3  a screenshot of the page at 1280 pixels is kept as a test
#              artifact: build/test-artifacts/report-1280.png
# The page is opened as the user would (a file: URL); the checks run in a
# copy of it with a small script added that writes what it found into the
# DOM, which chromium then dumps.
. tests/e2e/lib.sh

browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
	echo "SKIP browser: no chromium here (apt-get install chromium; \`make test\` installs it as root)"
	exit 0
fi
# headless chromium as root needs --no-sandbox; its profile goes in $T
run_browser() {
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$T/profile" --window-size=1280,2400 "$@" 2>>"$T/browser.log"
}

mpi 2 sweep tests/e2e/tiny.json --tag browser --quiet >/dev/null 2>&1
expect_exit browser-0 0 "$FGO" report --tag browser --format html -o "$T/report"
cp "$T/report/index.html" "$T/report/check.html"
cat >>"$T/report/check.html" <<'JS'
<script>
window.addEventListener("load", function () {
	var imgs = document.images, bad = [];
	for (var i = 0; i < imgs.length; i++)
		if (!imgs[i].complete || imgs[i].naturalWidth === 0)
			bad.push(imgs[i].getAttribute("src"));
	var out = document.createElement("pre");
	out.id = "fgo-check";
	out.textContent = "fgo-check images=" + imgs.length + " broken=" + bad.length + " width=" +
		document.documentElement.scrollWidth + " window=" + window.innerWidth + " [" + bad.join(" ") + "]";
	document.body.appendChild(out);
});
</script>
JS
run_browser --virtual-time-budget=10000 --dump-dom "file://$T/report/check.html" >"$T/dom.html"
line=$(grep -o 'fgo-check images=[0-9]* broken=[0-9]* width=[0-9]* window=[0-9]* \[[^]]*\]' "$T/dom.html" | head -n 1)
images=$(echo "$line" | sed -n 's/.*images=\([0-9]*\).*/\1/p')
broken=$(echo "$line" | sed -n 's/.*broken=\([0-9]*\).*/\1/p')
width=$(echo "$line" | sed -n 's/.*width=\([0-9]*\).*/\1/p')
loaded() { [ -n "$line" ] && [ "${images:-0}" -ge 1 ] && [ "${broken:-1}" = 0 ]; }
fits() { [ -n "$width" ] && [ "$width" -le 1280 ]; }
check browser-1 "the page loaded with every image ($line; chromium: $(tail -c 300 "$T/browser.log"))" loaded
check browser-2 "no wider than 1280 pixels ($line)" fits
mkdir -p build/test-artifacts
rm -f build/test-artifacts/report-1280.png
run_browser --screenshot="$PWD/build/test-artifacts/report-1280.png" "file://$T/report/index.html" >/dev/null
check browser-3 "a screenshot kept in build/test-artifacts/report-1280.png" [ -s build/test-artifacts/report-1280.png ]
