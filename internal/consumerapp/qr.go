package consumerapp

import (
	"net/http"

	"rsc.io/qr"
)

// GET /api/orders/{id}/qr.png: the deposit address as a QR code, drawn here so the page
// fetches nothing from anywhere else.
func (s *Server) qrCode(w http.ResponseWriter, r *http.Request, sid string) {
	id, ok := s.owned(w, r, sid)
	if !ok {
		return
	}
	v, _ := s.recent.get(sid, id)
	if v.DepositAddress == nil {
		writeProblem(w, http.StatusNotFound, Problem{Code: "no deposit address", Message: "This swap has no deposit address yet.", Action: "Wait a moment; it appears here by itself."})
		return
	}
	code, err := qr.Encode(*v.DepositAddress, qr.M)
	if err != nil {
		writeProblem(w, http.StatusInternalServerError, explain("internal error", "", http.StatusInternalServerError))
		return
	}
	code.Scale = 6
	w.Header().Set("Content-Type", "image/png")
	_, _ = w.Write(code.PNG())
}
