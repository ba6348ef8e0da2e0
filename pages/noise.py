"""Noise: corrupt a copy of the data in a chosen way, see what changed, and go back."""

import streamlit as st

from ui.shell import ensure_shell

ensure_shell()

from coarsenrank_core.noise import NOISE_TYPES  # noqa: E402
from ui import compute, state  # noqa: E402
from ui.noise_report import describe_noise  # noqa: E402
from ui.samples import SAMPLES  # noqa: E402
from ui.scenario import TEACHING  # noqa: E402
from ui.widgets import alpha_text  # noqa: E402

st.title("Noise")
st.markdown("Make a noisy copy of the loaded data to see how each method copes. The original "
            "stays safe: one click brings it back.")

dataset = state.current()
original = dataset.original
setting = state.alpha_setting()
if dataset.parent is not None:
    st.info(f"You are looking at a noisy copy of “{original.name}”. It keeps the original's "
            f"{alpha_text(setting.alpha)} ({setting.how}), so before and after are compared "
            "at the same α.")
    if st.button("Back to the original data", key="noise_revert"):
        state.set_current(original)
        st.rerun()
else:
    st.caption(f"The consensus before and after is compared at {alpha_text(setting.alpha)} "
               f"({setting.how}); the noisy copy keeps this α.")

kind = st.selectbox("What kind of noise?", list(NOISE_TYPES),
                    format_func=lambda k: NOISE_TYPES[k].label, key="noise_kind")
noise = NOISE_TYPES[kind]
st.caption(noise.description)
low, high, default = noise.range
with st.form("noise_form"):
    level = st.slider(f"How much? ({noise.parameter})", float(low), float(high), float(default),
                      step=0.05, key=f"noise_level_{kind}")
    seed = st.number_input("Seed (the same seed gives the same noise)", 0, 100_000, 0,
                           key="noise_seed")
    apply = st.form_submit_button("Make the noisy copy", type="primary")

if apply:
    result = compute.inject_noise(original.preferences, original.key, kind, float(level),
                                  int(seed))
    with st.spinner("Comparing the consensus before and after…"):
        report = describe_noise(original, result, noise.label, float(level), int(seed),
                                setting.alpha)
    state.set_current(state.Dataset(
        name=f"{original.name} + {noise.label.lower()} ({level:g})",
        preferences=result.preferences, truth=original.truth, origin="noise",
        description=original.description, parent=original, noise=report))
    st.rerun()

report = dataset.noise
if report is not None:
    st.subheader("What changed")
    first, second, third = st.columns(3)
    first.metric("Lists altered", f"{report.fraction_altered:.0%}")
    second.metric("How far an altered list moved", f"{report.mean_distance:.0%}",
                  help="Mean share of item pairs whose order changed in an altered list "
                       "(normalised Kendall distance to its source).")
    third.metric("Consensus pairs that flipped", f"{report.consensus_distance}",
                 help=f"Kendall distance between the CoarsenPL consensus orders before and "
                      f"after, out of {report.consensus_pairs} item pairs.")
    st.caption(f"{report.label}, level {report.level:g}, seed {report.seed}; both consensus "
               f"orders at {alpha_text(setting.alpha)}. Open “Compare methods” to see which "
               "methods still find the true order.")

st.header("What helps, and what does not", divider="gray")
st.markdown("Two built-in scenarios show what our measurements find (5 seeds each, "
            "`reports/teaching_scenarios.csv`). Load one, then run “Compare methods”.")
for sample_id in ("careless", "campaign"):
    sample = SAMPLES[sample_id]
    left, right = st.columns([3, 1])
    left.markdown(f"**{sample.title}.** {TEACHING[sample.scenario]}")
    if right.button("Load this scenario", key=f"load_{sample_id}"):
        state.set_current(compute.load_sample(sample_id))
        st.rerun()
